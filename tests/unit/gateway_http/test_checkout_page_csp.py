"""The hosted page's framing rule and Content-Security-Policy (gateway_http/checkout_page)."""

from __future__ import annotations

from gateway_http.checkout_page import _csp, frame_ancestors


def test_a_live_page_may_be_framed_only_by_itself_and_the_origin_of_its_return_url():
    assert frame_ancestors("https://shop.example/thanks?o=1", livemode=True) == "'self' https://shop.example"


def test_a_live_page_without_a_return_url_may_be_framed_only_by_itself():
    assert frame_ancestors("", livemode=True) == "'self'"


def test_a_test_mode_page_may_be_framed_by_any_site():
    assert frame_ancestors("https://shop.example/thanks", livemode=False) == "*"


def test_the_csp_allows_scripts_by_nonce_and_the_card_library_only():
    csp = _csp("abc", "'self'", "https://js.stripe.com")
    assert "script-src 'nonce-abc' https://js.stripe.com" in csp
    assert "default-src 'none'" in csp and "unsafe" not in csp
    assert "frame-ancestors 'self'" in csp


def test_without_a_card_library_no_other_origin_is_allowed():
    csp = _csp("abc", "'self'", "")
    assert "script-src 'nonce-abc';" in csp and "connect-src 'self';" in csp and "frame-src 'none'" in csp
