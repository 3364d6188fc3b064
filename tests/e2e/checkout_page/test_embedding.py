"""The page embedded in a merchant's site: the parent window receives `ready`, `resize` (height), `success` (the
intent) and `error` (message), posted to the origin of the link's return_url."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.checkout_page.conftest import coffee_link, page_url
from tests.harness import TLS, Service, free_port

PAYER = 3
POLL_WAIT_MS = 45_000


class Shop:
    """A merchant's site on another origin (localhost, not 127.0.0.1) that frames the page and records messages."""

    def __init__(self) -> None:
        self.port = free_port()
        self.origin = f"http://localhost:{self.port}"
        self.frame_url = ""
        shop = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = (f"""<!doctype html><title>Shop</title><h1>Shop</h1>
<script>window.messages = []; addEventListener("message", (e) => window.messages.push({{origin: e.origin,
data: e.data}}));</script><iframe id="pay" src="{shop.frame_url}" style="width:400px;height:900px;border:0"></iframe>"""
                        if self.path.startswith("/embed") else "<!doctype html><title>Thanks</title>thanks").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def merchant_site() -> Iterator[Shop]:
    site = Shop()
    yield site
    site.server.shutdown()


def token(shop: httpx.Client, email: str) -> str:
    return str(ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": email, "provider": "site"}))["token"])


def test_the_parent_window_receives_ready_resize_and_success_from_its_return_url_origin(
        page: Page, paygate: Service, shop: httpx.Client, chain: Chain, merchant_site: Shop) -> None:
    link = coffee_link(shop, return_url=f"{merchant_site.origin}/thanks")
    merchant_site.frame_url = f"{page_url(paygate, link)}?ephemeral_token={token(shop, 'ida@example.com')}"
    page.goto(f"{merchant_site.origin}/embed")
    frame = page.frame_locator("#pay")
    frame.locator("#continue").click()
    frame.locator("#asset").select_option("USDT-ETH-TEST")
    frame.locator("#get-quote").click()
    expect(frame.locator("#pay-amount")).not_to_have_value("")
    amount = frame.locator("#pay-amount").input_value().split()[0]
    address = frame.locator("#pay-address").text_content() or ""
    chain.send_token("USDT", PAYER, address, int(Decimal(amount).scaleb(6)))
    expect(frame.locator("#p-seen")).to_have_class(re.compile("is-active|is-done"), timeout=POLL_WAIT_MS)
    chain.mine(12)
    expect(frame.locator("#step-done")).to_be_visible(timeout=POLL_WAIT_MS)
    messages = page.evaluate("window.messages")
    types = [m["data"]["type"] for m in messages]
    assert types[0] == "ready" and [t for t in types if t != "resize"] == ["ready", "success"], types
    assert "resize" in types and all(isinstance(m["data"]["height"], int) and m["data"]["height"] > 0
                                     for m in messages if m["data"]["type"] == "resize")
    success = next(m["data"]["intent"] for m in messages if m["data"]["type"] == "success")
    assert success["status"] == "Success" and success["id"].startswith("pi_")
    assert {m["origin"] for m in messages} == {paygate.http_url}
    assert page.url == f"{merchant_site.origin}/embed"  # embedded: no redirect, the parent decides


def test_an_ended_session_posts_an_error_message(
        page: Page, paygate: Service, shop: httpx.Client, merchant_site: Shop) -> None:
    intent = ok(shop.post("/v1/payment_intents", json={"amount": "3", "currency": "USD"}))
    ok(shop.post(f"/v1/payment_intents/{intent['id']}/cancel", json={}))
    merchant_site.frame_url = (f"{paygate.http_url}/checkout/pay/{intent['id']}"
                               f"?client_secret={intent['client_secret']}")
    page.goto(f"{merchant_site.origin}/embed")
    expect(page.frame_locator("#pay").locator("#step-expired")).to_be_visible()
    messages = page.evaluate("window.messages")
    errors = [m["data"] for m in messages if m["data"]["type"] == "error"]
    assert errors and isinstance(errors[0]["message"], str) and errors[0]["message"]


def test_a_page_not_embedded_goes_back_to_the_return_url_after_paying(
        page: Page, paygate: Service, shop: httpx.Client, chain: Chain, merchant_site: Shop) -> None:
    link = coffee_link(shop, return_url=f"{merchant_site.origin}/thanks")
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token(shop, 'jon@example.com')}")
    page.click("#continue")
    page.select_option("#asset", "USDT-ETH-TEST")
    page.click("#get-quote")
    expect(page.locator("#pay-amount")).not_to_have_value("")
    amount = page.input_value("#pay-amount").split()[0]
    chain.send_token("USDT", PAYER, (page.text_content("#pay-address") or ""), int(Decimal(amount).scaleb(6)))
    expect(page.locator("#p-seen")).to_have_class(re.compile("is-active|is-done"), timeout=POLL_WAIT_MS)
    chain.mine(12)
    page.wait_for_url(f"{merchant_site.origin}/thanks", timeout=POLL_WAIT_MS)


def test_a_parent_on_another_origin_than_the_return_urls_receives_no_message(
        page: Page, paygate: Service, shop: httpx.Client, merchant_site: Shop) -> None:
    # The site frames the page from http://localhost:<port>; the link's return_url is on http://127.0.0.1:<port>.
    link = coffee_link(shop, return_url=f"http://127.0.0.1:{merchant_site.port}/thanks")
    merchant_site.frame_url = f"{page_url(paygate, link)}?ephemeral_token={token(shop, 'kai@example.com')}"
    page.goto(f"{merchant_site.origin}/embed")
    frame = page.frame_locator("#pay")
    frame.locator("#continue").click()
    expect(frame.locator("#step-pay")).to_be_visible()  # ready and several resizes were posted by now
    page.wait_for_timeout(1000)
    assert page.evaluate("window.messages") == []


def test_a_test_mode_page_without_a_return_url_posts_to_any_parent(
        page: Page, paygate: Service, shop: httpx.Client, merchant_site: Shop) -> None:
    link = coffee_link(shop)  # no return_url: in test mode, whoever frames the page hears from it
    merchant_site.frame_url = f"{page_url(paygate, link)}?ephemeral_token={token(shop, 'lou@example.com')}"
    page.goto(f"{merchant_site.origin}/embed")
    expect(page.frame_locator("#pay").locator("#continue")).to_be_visible()
    page.wait_for_function("() => window.messages.some((m) => m.data.type === 'ready')")
    messages = page.evaluate("window.messages")
    assert messages[0]["data"] == {"type": "ready"} and messages[0]["origin"] == paygate.http_url


PARENT = """<!doctype html><title>Parent</title><script>window.messages = []; addEventListener("message",
(e) => window.messages.push({{origin: e.origin, data: e.data}}));</script>
<iframe id="pay" src="{src}" style="width:400px;height:900px;border:0"></iframe>"""


def frame_from_paygates_origin(page: Page, paygate: Service, src: str) -> None:
    """A parent page on paygate's own origin (answered by the browser's router, never by paygate): the one site a
    live page without a return_url may be framed by."""
    url = f"{paygate.http_url}/test-parent.html"
    page.route(url, lambda route: route.fulfill(status=200, content_type="text/html", body=PARENT.format(src=src)))
    page.goto(url)


def test_a_live_page_without_a_return_url_posts_to_no_parent_where_a_test_page_posts_to_any(
        page: Page, paygate: Service, shop: httpx.Client, merchant: dict[str, Any]) -> None:
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["live"]["secret_key"], ""), timeout=30,
                      verify=TLS) as live:
        live_link = coffee_link(live)
    public = ok(httpx.get(f"{paygate.http_url}/checkout/links/{live_link['id']}", verify=TLS))
    assert public["livemode"] is True and not public.get("return_url")
    frame_from_paygates_origin(page, paygate, live_link["url"])
    expect(page.frame_locator("#pay").locator("#continue")).to_be_visible()  # framed: 'self' may frame it
    page.wait_for_timeout(1000)
    assert page.evaluate("window.messages") == []  # "any origin" is for test mode only
    test_link = coffee_link(shop)
    frame_from_paygates_origin(page, paygate, test_link["url"])
    page.wait_for_function("() => window.messages.some((m) => m.data.type === 'ready')")
    assert page.evaluate("window.messages")[0] == {"origin": paygate.http_url, "data": {"type": "ready"}}


def test_a_live_page_is_framed_by_its_return_urls_origin_only_and_posts_to_it(
        page: Page, paygate: Service, merchant: dict[str, Any], merchant_site: Shop) -> None:
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["live"]["secret_key"], ""), timeout=30,
                      verify=TLS) as live:
        own = coffee_link(live, return_url=f"{merchant_site.origin}/thanks")
        elsewhere = coffee_link(live, return_url=f"http://127.0.0.1:{merchant_site.port}/thanks")
    merchant_site.frame_url = own["url"]
    page.goto(f"{merchant_site.origin}/embed")
    expect(page.frame_locator("#pay").locator("#continue")).to_be_visible()
    page.wait_for_function("() => window.messages.some((m) => m.data.type === 'ready')")
    assert {m["origin"] for m in page.evaluate("window.messages")} == {paygate.http_url}
    # The same site framing a live page whose return_url is on another origin: the browser refuses the frame.
    merchant_site.frame_url = elsewhere["url"]
    page.goto(f"{merchant_site.origin}/embed")
    page.wait_for_timeout(1500)
    expect(page.frame_locator("#pay").locator("#continue")).to_have_count(0)
    assert page.evaluate("window.messages") == []
