"""An invoice whose payment is under way cannot be voided (409 `invoice_not_open`, nothing changes): its payment
intent cannot be canceled any more, and voiding it would keep the customer's money for an invoice that says void.
The payment then completes and pays the invoice."""

from __future__ import annotations

from decimal import Decimal

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.subscriptions.support import PAYER, advance, club, customer, invoices, subscribe, wait_for


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
