"""A crypto quote that expires on the page is replaced by a new one (a new attempt, a new address)."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import ok
from tests.e2e.checkout_page.conftest import coffee_link, page_url
from tests.harness import Service

EXTRA_ENV = {"PAYGATE_QUOTE_SECONDS": "6"}  # read by this module's paygate fixture


def test_an_expired_quote_is_renewed_with_a_new_address_and_a_new_countdown(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    token = ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "kim@example.com", "provider": "site"}))["token"]
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
    page.click("#continue")
    page.select_option("#asset", "USDT-ETH-TEST")
    page.click("#get-quote")
    expect(page.locator("#countdown")).to_contain_text("This price holds for 0:0")
    first = (page.text_content("#pay-address") or "")
    expect(page.locator("#pay-address")).not_to_have_text(first, timeout=20_000)
    expect(page.locator("#countdown")).to_contain_text("This price holds for")
    intent = ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 1}))["payment_intents"][0]
    assert len(intent["charges"]) == 2
