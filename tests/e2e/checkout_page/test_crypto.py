"""Paying a payment link with crypto in a real browser: the page shows a quote, the test sends the transfer on
Anvil while the page polls, and the page walks through the transaction's progress to success."""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import pairwise
from typing import Any
from urllib.parse import unquote

import httpx
from playwright.sync_api import Page, expect

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.checkout_page.conftest import coffee_link, page_url
from tests.harness import TLS, Service

PAYER = 2
ASSET = "USDT-ETH-TEST"
POLL_WAIT_MS = 45_000  # the page polls every 10 s


def ephemeral_token(shop: httpx.Client, email: str = "ana@example.com") -> str:
    return str(ok(shop.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": email, "provider": "shop"}))["token"])


def open_quote(page: Page, paygate: Service, link: dict[str, Any], token: str) -> dict[str, str]:
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={token}")
    expect(page.locator("#signed-in")).to_be_visible()
    page.click("#continue")
    expect(page.locator("#step-pay")).to_be_visible()
    page.select_option("#asset", ASSET)
    page.click("#get-quote")
    expect(page.locator("#quote")).to_be_visible()
    return {"amount": page.input_value("#pay-amount").split()[0], "address": (page.text_content("#pay-address") or ""),
            "uri": page.get_attribute("#qr", "data-uri") or ""}


def units(amount: str, decimals: int = 6) -> int:
    return int(Decimal(amount).scaleb(decimals))


def test_a_link_is_paid_with_usdt_sent_on_chain_while_the_page_polls(
        page: Page, paygate: Service, shop: httpx.Client, chain: Chain) -> None:
    link = coffee_link(shop)
    quote = open_quote(page, paygate, link, ephemeral_token(shop))
    assert quote["amount"] == "12.5"
    sent = chain.send_token("USDT", PAYER, quote["address"], units(quote["amount"]))
    expect(page.locator("#p-seen")).to_have_class(re.compile("is-active|is-done"), timeout=POLL_WAIT_MS)
    chain.mine(12)
    expect(page.locator("#step-done")).to_be_visible(timeout=POLL_WAIT_MS)
    expect(page.locator("#done-title")).to_have_text("Payment received")
    intents = ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 1}))["payment_intents"]
    assert intents[0]["status"] == "Success"
    assert intents[0]["charges"][0]["transactions"][0]["tx_hash"] == sent.tx_hash


def test_the_qr_code_carries_an_eip681_transfer_of_the_token_amount_to_the_address(
        page: Page, paygate: Service, shop: httpx.Client, chain: Chain) -> None:
    link = coffee_link(shop)
    quote = open_quote(page, paygate, link, ephemeral_token(shop))
    usdt = chain.dev.tokens["USDT"]
    assert quote["uri"] == (f"ethereum:{usdt}@{chain.dev.chain_id}/transfer?address={quote['address']}"
                            f"&uint256={units(quote['amount'])}")
    src = page.get_attribute("#qr", "src") or ""
    assert unquote(src.split("data=", 1)[1]) == quote["uri"]
    svg = httpx.get(f"{paygate.http_url}{src}", verify=TLS)
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.startswith("<svg") and "<path" in svg.text
    # The page shows that picture: the browser loaded and decoded it.
    expect(page.locator("#qr")).to_have_js_property("complete", True)
    assert page.eval_on_selector("#qr", "img => img.naturalWidth") > 0


def test_the_amount_and_address_copy_buttons_copy_the_bare_values(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    link = coffee_link(shop)
    quote = open_quote(page, paygate, link, ephemeral_token(shop))
    for field, value in (("pay-amount", quote["amount"]), ("pay-address", quote["address"])):
        page.click(f"button[data-copy='{field}']")
        expect(page.locator(f"button[data-copy='{field}']")).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == value
    assert quote["address"].startswith("0x") and len(quote["address"]) == 42


def test_the_asset_picker_offers_the_merchants_payable_assets(
        page: Page, paygate: Service, shop: httpx.Client, merchant: dict[str, Any]) -> None:
    link = coffee_link(shop)
    listed = ok(httpx.get(f"{paygate.http_url}/merchants/{merchant['merchant_id']}/assets",
                          params={"key": merchant["test"]["public_key"]}, verify=TLS))
    payable = [a["id"] for a in listed["assets"]
               if a["payable"] and not a["is_fiat"]]
    assert ASSET in payable
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={ephemeral_token(shop, 'bo@example.com')}")
    page.click("#continue")
    expect(page.locator("#asset option")).to_have_count(len(payable))
    assert page.eval_on_selector_all("#asset option", "os => os.map((o) => o.value)") == payable


def test_the_progress_shows_confirming_n_of_n_as_blocks_are_mined_on_top(
        page: Page, paygate: Service, shop: httpx.Client, chain: Chain) -> None:
    link = coffee_link(shop)
    quote = open_quote(page, paygate, link, ephemeral_token(shop, "cal@example.com"))
    chain.send_token("USDT", PAYER, quote["address"], units(quote["amount"]))
    # Submitted: in a block, nothing on top yet (or already one on top, if the watcher looked late).
    expect(page.locator("#p-seen")).to_have_class(re.compile("is-active|is-done"), timeout=POLL_WAIT_MS)
    chain.mine(1)
    # The dev chain wants 3 confirmations: one block on top is "Confirming 1/3" (2/3 if a block of paygate's own
    # landed meanwhile), never yet confirmed.
    expect(page.locator("#confirmations")).to_have_text(re.compile(r"^[12]/3$"), timeout=POLL_WAIT_MS)
    expect(page.locator("#p-confirming")).to_have_class("is-active")
    expect(page.locator("#p-seen")).to_have_class("is-done")
    expect(page.locator("#p-confirmed")).to_have_class("")
    chain.mine(12)
    expect(page.locator("#step-done")).to_be_visible(timeout=POLL_WAIT_MS)


# The page's own record of its reads of the intent (POST /payment_intents/link/<id>, not …/update), in its clock.
READS = """() => performance.getEntriesByType("resource")
  .filter((e) => /\\/payment_intents\\/link\\/pi_[A-Za-z0-9]+$/.test(new URL(e.name).pathname))
  .map((e) => ({start: e.startTime, end: e.responseEnd}))"""


def test_the_page_reads_the_intent_again_10_seconds_after_each_answer(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    open_quote(page, paygate, link, ephemeral_token(shop, "dee@example.com"))
    page.wait_for_function(f"() => ({READS})().length >= 3", timeout=POLL_WAIT_MS)
    reads = page.evaluate(READS)
    gaps = [after["start"] - before["end"] for before, after in pairwise(reads)]
    # A timer never fires early; it may fire late on a busy machine, but not by seconds.
    assert all(10_000 - 1 <= gap <= 12_500 for gap in gaps), gaps
