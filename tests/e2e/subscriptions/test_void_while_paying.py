"""An invoice whose payment is under way cannot be voided (409 `invoice_not_open`, nothing changes): its payment
intent cannot be canceled any more, and voiding it would keep the customer's money for an invoice that says void.
The payment then completes and pays the invoice."""

from __future__ import annotations

from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.subscriptions.support import PAYER, advance, club, customer, invoices, subscribe, wait_for
from tests.harness import TLS, Service


def test_an_invoice_whose_payment_is_confirming_cannot_be_voided(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    renewal = invoices(shop, sub["id"])[-1]
    intent_id = renewal["payment_intent_id"]
    chosen = ok(shop.post(f"/v1/payment_intents/{intent_id}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))
    quote = chosen["payment_intents"][0]["payment_method_options"]["crypto"]
    chain.send_token("USDT", PAYER, quote["deposit_address"], int(Decimal(quote["amount"]).scaleb(quote["decimals"])))
    wait_for(lambda: ok(shop.get(f"/v1/payment_intents/{intent_id}")), lambda i: i["status"] == "Processing")
    refused = fails(shop.post(f"/v1/invoices/{renewal['id']}/void", json={}), 409, "invoice_not_open")
    assert "Processing" in refused["msg"]
    assert ok(shop.get(f"/v1/invoices/{renewal['id']}"))["status"] == "open"
    chain.mine(3)
    paid = wait_for(lambda: ok(shop.get(f"/v1/invoices/{renewal['id']}")), lambda i: i["status"] == "paid")
    assert paid["amount_paid"] == "10.00"


def _pay_half(shop: httpx.Client, chain: Chain, intent_id: str) -> dict[str, Any]:
    """Half of the invoice's quote sent and confirmed: the intent PartialPaid."""
    chosen = ok(shop.post(f"/v1/payment_intents/{intent_id}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))
    quote = chosen["payment_intents"][0]["payment_method_options"]["crypto"]
    half = int(Decimal(quote["amount"]).scaleb(quote["decimals"])) // 2
    chain.send_token("USDT", PAYER, quote["deposit_address"], half)
    chain.mine(3)
    return wait_for(lambda: ok(shop.get(f"/v1/payment_intents/{intent_id}")), lambda i: i["status"] == "PartialPaid")


def test_an_invoice_partly_paid_cannot_be_voided_by_the_merchant(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    renewal = invoices(shop, sub["id"])[-1]
    _pay_half(shop, chain, renewal["payment_intent_id"])
    refused = fails(shop.post(f"/v1/invoices/{renewal['id']}/void", json={}), 409, "invoice_not_open")
    assert "PartialPaid" in refused["msg"]
    assert ok(shop.get(f"/v1/invoices/{renewal['id']}"))["status"] == "open"


def test_an_invoice_the_gateway_closed_while_partly_paid_opens_no_new_payment_attempt(
        paygate: Service, shop: httpx.Client, chain: Chain) -> None:
    """Canceling the subscription now closes its open invoice (void) although its intent, PartialPaid, cannot be
    canceled (DESIGN §4: not after confirmed funds). What arrived stays on the intent, refundable; but neither the
    merchant nor the payer can open another attempt to pay a void invoice."""
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    renewal = invoices(shop, sub["id"])[-1]
    intent_id = renewal["payment_intent_id"]
    _pay_half(shop, chain, intent_id)
    ok(shop.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": False}))
    assert ok(shop.get(f"/v1/invoices/{renewal['id']}"))["status"] == "void"
    for asset_id in ("USDT-ETH-TEST", "ETH-ETH-TEST"):  # the open attempt's asset, and a new one
        refused = fails(shop.post(f"/v1/payment_intents/{intent_id}", json={
            "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": asset_id}}}),
            409, "payment_intent_unexpected_state")
        assert "void" in refused["msg"]
    # The e-mailed payment_url: the payer's page neither shows the intent (with its deposit address) nor opens an
    # attempt; it shows the session as ended.
    url = urlparse(renewal["payment_url"])
    link = f"{paygate.http_url}/payment_intents/link/{url.path.rsplit('/', 1)[-1]}"
    secrets = {"key": ok(shop.get("/v1/merchants/me"))["test"]["public_key"],
               "client_secret": parse_qs(url.query)["client_secret"][0]}
    shown = fails(httpx.post(link, json=secrets, timeout=60, verify=TLS), 409, "ErrStatusUnexpected")
    assert "void" in shown["msg"]
    fails(httpx.post(f"{link}/update", json={**secrets, "payment_method_type": "crypto", "payment_method_options": {
        "crypto": {"asset_id": "USDT-ETH-TEST"}}}, timeout=60, verify=TLS), 409, "ErrStatusUnexpected")
    intent = ok(shop.get(f"/v1/payment_intents/{intent_id}"))
    assert intent["status"] == "PartialPaid" and len(intent["charges"]) == 1
