"""A payment to a customer's permanent deposit address pays the intent whose quote it can count on: an older intent
of the same customer sharing the address, whose quote lapsed, does not take it as unexpected funds."""

from __future__ import annotations

import time
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, transactions, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import PAYER

GRACE_SECONDS = 2
EXTRA_ENV = {"PAYGATE_QUOTE_SECONDS": "5", "PAYGATE_QUOTE_GRACE_SECONDS": str(GRACE_SECONDS)}
USDT = "USDT-ETH-TEST"


def open_permanent(shop: Shop, customer: str) -> tuple[str, dict[str, Any]]:
    """A 10.50 USD intent of `customer` paying to its permanent USDT address: (its id, its quote)."""
    body = {"amount": "10.50", "currency": "USD", "customer": customer, "permanent_deposit": True,
            "permanent_deposit_asset_id": USDT}
    intent = ok(shop.api.post("/v1/payment_intents", json=body))
    chosen = ok(shop.api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": USDT}}}))
    return intent["id"], chosen["payment_intents"][0]["payment_method_options"]["crypto"]


def test_a_payment_of_the_current_quote_pays_its_intent_not_an_older_one_whose_quote_lapsed(
        chain: Chain, shop: Shop) -> None:
    customer = ok(shop.api.post("/v1/customers", json={"email": "perm@example.com"}))["id"]
    older, stale = open_permanent(shop, customer)
    time.sleep(max(0.0, stale["expired_at"] + GRACE_SECONDS + 2 - time.time()))  # the older quote lapsed
    current, quote = open_permanent(shop, customer)  # the shopper's checkout now, its quote live
    assert stale["deposit_address"] == quote["deposit_address"]

    chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    chain.mine(3)

    paid = wait_for(shop.api, current, lambda i: i["status"] == "Success")
    assert len(transactions(paid)) == 1 and not paid["unexpected_funds"]
    untouched = ok(shop.api.get(f"/v1/payment_intents/{older}"))
    assert untouched["status"] == "RequiresPaymentMethod"
    assert transactions(untouched) == [] and not untouched["unexpected_funds"]
