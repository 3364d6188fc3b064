"""Paying a link by card in a real browser: the provider's Stripe.js (localstripe's stand-in, served by localstripe)
tokenizes the card, the page sends the token on the update call, 3-D Secure is finished with confirmCardPayment,
and the page polls every 3 s until the intent is paid or the charge failed."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, Request, expect

from server.boot.cli import set_card_provider
from server.config import load_settings
from tests.conftest import ok
from tests.e2e.checkout_page.conftest import DESKTOP, PHONE, artifacts_dir, coffee_link, page_url
from tests.e2e.checkout_page.test_layout import DOCS
from tests.harness import Service
from tests.localstripe import LocalStripe

CARDS = True  # this module's paygate talks to a localstripe (conftest.py)
OK_CARD = "4242424242424242"
DECLINED_CARD = "4000000000000341"
THREE_D_SECURE_CARD = "4000000000003220"
CARD_WAIT_MS = 30_000


@pytest.fixture
def card_merchant(paygate: Service, merchant: dict[str, Any]) -> dict[str, Any]:
    """The merchant with provider_a test keys (localstripe accepts any sk_test_…)."""
    settings = load_settings({k: v for k, v in paygate.env.items() if k.startswith("PAYGATE_")})
    keys = (f"sk_test_{secrets.token_hex(12)}", f"pk_test_{secrets.token_hex(12)}", f"whsec_{secrets.token_hex(16)}")
    with ThreadPoolExecutor(1) as pool:  # playwright's sync API keeps an event loop running in this thread
        pool.submit(asyncio.run, set_card_provider(settings, merchant["merchant_id"], False, *keys)).result()
    return merchant


def open_card_step(page: Page, paygate: Service, shop: httpx.Client, email: str) -> None:
    link = coffee_link(shop)
    token = ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": email, "provider": "site"}))["token"]
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
    page.click("#continue")
    page.click("#tab-card")
    expect(page.locator("#card-element input").first).to_be_visible()


def enter_card(page: Page, number: str) -> None:
    for field, value in (("number", number), ("exp_month", "12"), ("exp_year", "34"), ("cvc", "123"),
                         ("postal_code", "10001")):
        page.fill(f"#card-element input[placeholder='{field}']", value)


def intent_status(shop: httpx.Client) -> dict[str, Any]:
    return ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 1}))["payment_intents"][0]  # type: ignore[no-any-return]


def test_a_new_card_pays_the_link(page: Page, paygate: Service, shop: httpx.Client,
                                  card_merchant: dict[str, Any]) -> None:
    to_paygate: list[Request] = []
    paygate_host = urlsplit(paygate.http_url).netloc
    page.on("request", lambda r: to_paygate.append(r) if urlsplit(r.url).netloc == paygate_host else None)
    open_card_step(page, paygate, shop, "nia@example.com")
    enter_card(page, OK_CARD)
    page.click("#pay-card")
    expect(page.locator("#step-done")).to_be_visible(timeout=CARD_WAIT_MS)
    assert intent_status(shop)["status"] == "Success"
    # The card was tokenized in the page by the provider's library (createToken) and only its token was sent on the
    # spec's update call: the number itself never reached paygate.
    updates = [json.loads(r.post_data or "{}") for r in to_paygate if r.url.endswith("/update")]
    tokens = [u["payment_method_options"]["fiat"].get("token", "") for u in updates
              if u.get("payment_method_type") == "cards"]
    assert [t for t in tokens if t] and all(t.startswith("tok_") for t in tokens if t), updates
    assert all(OK_CARD not in (r.url + (r.post_data or "")) for r in to_paygate)


def pay_with_a_declined_card(page: Page, paygate: Service, shop: httpx.Client, email: str) -> None:
    """The card step opened for `email` and a declined card sent: the page shows the decline."""
    open_card_step(page, paygate, shop, email)
    enter_card(page, DECLINED_CARD)
    page.click("#pay-card")
    expect(page.locator("#card-error")).to_contain_text("declined", timeout=CARD_WAIT_MS)


def test_a_declined_card_shows_the_decline_and_another_card_can_pay(
        page: Page, paygate: Service, shop: httpx.Client, card_merchant: dict[str, Any]) -> None:
    pay_with_a_declined_card(page, paygate, shop, "oli@example.com")
    expect(page.locator("#step-done")).to_be_hidden()
    declined = [c for c in intent_status(shop)["charges"] if c["status"] == "Failed"]
    assert declined and declined[-1]["failure_message"], intent_status(shop)["charges"]
    enter_card(page, OK_CARD)
    page.click("#pay-card")
    expect(page.locator("#step-done")).to_be_visible(timeout=CARD_WAIT_MS)
    assert intent_status(shop)["status"] == "Success"


# The page's own record of its reads of the intent (POST /payment_intents/link/<id>, not …/update) and of its card
# update calls, in its clock.
TIMINGS = """() => performance.getEntriesByType("resource")
  .map((e) => ({path: new URL(e.name).pathname, start: e.startTime, end: e.responseEnd}))
  .filter((e) => /\\/payment_intents\\/link\\/pi_[A-Za-z0-9]+(\\/update)?$/.test(e.path))"""


def test_once_a_card_is_sent_the_page_reads_the_intent_again_3_seconds_after_each_answer(
        page: Page, paygate: Service, shop: httpx.Client, card_merchant: dict[str, Any]) -> None:
    # A declined card leaves the intent open, so the page goes on polling at the card step's pace.
    pay_with_a_declined_card(page, paygate, shop, "uma@example.com")
    paid_at = page.evaluate(f"() => ({TIMINGS})().filter((e) => e.path.endsWith('/update')).pop().start")
    reads_after = f"() => ({TIMINGS})().filter((e) => !e.path.endsWith('/update') && e.start > {paid_at})"
    page.wait_for_function(f"() => ({reads_after})().length >= 4", timeout=CARD_WAIT_MS)
    reads = page.evaluate(reads_after)
    gaps = [after["start"] - before["end"] for before, after in pairwise(reads)]
    # A timer never fires early; it may fire late on a busy machine, but not by seconds (and not at the 10 s of
    # the crypto step).
    assert all(3_000 - 1 <= gap <= 4_500 for gap in gaps), gaps


def test_a_3d_secure_card_is_finished_in_the_page(
        page: Page, paygate: Service, shop: httpx.Client, card_merchant: dict[str, Any]) -> None:
    open_card_step(page, paygate, shop, "pam@example.com")
    enter_card(page, THREE_D_SECURE_CARD)
    page.click("#pay-card")
    page.get_by_role("button", name="Complete authentication").click(timeout=CARD_WAIT_MS)
    expect(page.locator("#step-done")).to_be_visible(timeout=CARD_WAIT_MS)
    assert intent_status(shop)["status"] == "Success"


def test_a_saved_card_pays_the_next_purchase_without_the_card_form(
        page: Page, paygate: Service, shop: httpx.Client, card_merchant: dict[str, Any]) -> None:
    open_card_step(page, paygate, shop, "quinn@example.com")
    enter_card(page, OK_CARD)
    page.check("#save-card")
    page.click("#pay-card")
    expect(page.locator("#step-done")).to_be_visible(timeout=CARD_WAIT_MS)
    second = page.context.new_page()
    updates: list[dict[str, Any]] = []
    second.on("request", lambda r: updates.append(json.loads(r.post_data or "{}"))
              if r.url.endswith("/update") else None)
    open_card_step(second, paygate, shop, "quinn@example.com")
    saved = second.get_by_role("radio", name="4242")
    expect(saved).to_be_visible()
    saved.click()
    expect(second.locator("#new-card")).to_be_hidden()
    second.click("#pay-card")
    expect(second.locator("#step-done")).to_be_visible(timeout=CARD_WAIT_MS)
    # Paid with the saved card (payment_method_id), no new token; a second intent of the same customer.
    fiat = updates[-1]["payment_method_options"]["fiat"]
    assert fiat.get("payment_method_id", "").startswith("pm_") and "token" not in fiat, updates
    intents = ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 2}))["payment_intents"]
    assert [i["status"] for i in intents] == ["Success", "Success"]
    assert intents[0]["customer"]["id"] == intents[1]["customer"]["id"]


def test_card_pages_request_only_paygate_and_the_providers_library(
        page: Page, paygate: Service, shop: httpx.Client, card_merchant: dict[str, Any],
        localstripe: LocalStripe) -> None:
    hosts: set[str] = set()
    page.on("request", lambda r: hosts.add(urlsplit(r.url).netloc) if not r.url.startswith("data:") else None)
    open_card_step(page, paygate, shop, "rae@example.com")
    enter_card(page, OK_CARD)
    page.click("#pay-card")
    expect(page.locator("#step-done")).to_be_visible(timeout=CARD_WAIT_MS)
    assert hosts == {urlsplit(paygate.http_url).netloc, urlsplit(localstripe.url).netloc}


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_card_step_fits_the_screen_without_sideways_scrolling(
        browser: Browser, viewport: dict[str, int], paygate: Service, shop: httpx.Client,
        card_merchant: dict[str, Any], request: pytest.FixtureRequest) -> None:
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    try:
        page = context.new_page()
        open_card_step(page, paygate, shop, "sam@example.com")
        enter_card(page, OK_CARD)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        folder = DOCS if os.environ.get("PAYGATE_DOCS_SCREENSHOTS") == "1" else artifacts_dir(request)
        folder.mkdir(exist_ok=True)
        page.screenshot(path=str(folder / f"checkout-card-{viewport['width']}x{viewport['height']}.png"),
                        full_page=viewport == PHONE)
    finally:
        context.close()
