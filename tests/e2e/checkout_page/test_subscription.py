"""A subscription bought through the page: the selling plan chosen on the page prices the first cycle, and paying
it creates the subscription (DESIGN §8)."""

from __future__ import annotations

import re
from decimal import Decimal

import httpx
from playwright.sync_api import Page, expect

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.checkout_page.conftest import coffee_link, page_url
from tests.harness import Service

PAYER = 4
POLL_WAIT_MS = 45_000


def test_a_monthly_plan_bought_on_the_page_creates_the_subscription_when_paid(
        page: Page, paygate: Service, shop: httpx.Client, chain: Chain) -> None:
    link = coffee_link(shop)
    token = ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "tia@example.com", "provider": "site"}))["token"]
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
    page.get_by_role("radio", name="Monthly delivery").click()
    expect(page.locator("#total")).to_have_text("11.25 USD")
    page.click("#continue")
    page.select_option("#asset", "USDT-ETH-TEST")
    page.click("#get-quote")
    expect(page.locator("#pay-amount")).to_have_value("11.25 USDT")
    chain.send_token("USDT", PAYER, page.text_content("#pay-address") or "", int(Decimal("11.25").scaleb(6)))
    expect(page.locator("#p-seen")).to_have_class(re.compile("is-active|is-done"), timeout=POLL_WAIT_MS)
    chain.mine(12)
    expect(page.locator("#step-done")).to_be_visible(timeout=POLL_WAIT_MS)
    subscriptions = ok(shop.get("/v1/subscriptions", params={"limit": 10}))
    assert [s["status"] for s in subscriptions["data"]] == ["active"]
