"""Cancel while a payment is confirming: refused, so money on its way is never kept by a canceled intent.

Like the established gateways (a processing payment cannot be canceled), an intent is cancelable only before any
transfer to it was seen; once one was seen it is Processing until the transfer is final, and a cancel call then
answers 409 payment_intent_unexpected_state and changes nothing.
"""

from __future__ import annotations

from decimal import Decimal

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.paid_on_chain.test_paid_on_chain import open_intent, transactions, wait_for

PAYER = 8


def test_cancel_is_refused_while_a_payment_is_confirming(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST")
    chain.send_token("USDT", PAYER, quote["deposit_address"], 10_500_000)
    wait_for(shop, intent_id, lambda i: i["status"] == "Processing")
    refused = fails(shop.post(f"/v1/payment_intents/{intent_id}/cancel", json={"reason": "requested_by_customer"}),
                    409, "payment_intent_unexpected_state")
    assert "Processing" in refused["msg"]
    after = ok(shop.get(f"/v1/payment_intents/{intent_id}"))
    assert (after["status"], after["canceled_at"], after["cancellation_reason"]) == ("Processing", 0, "")
    assert ok(shop.get("/v1/events", params={"page_size": 100, "type": "payment_intent.canceled"}))["events"] == []


def test_a_payment_whose_cancel_was_refused_completes_the_intent(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST")
    chain.send_token("USDT", PAYER, quote["deposit_address"], 10_500_000)
    wait_for(shop, intent_id, lambda i: i["status"] == "Processing")
    shop.post(f"/v1/payment_intents/{intent_id}/cancel", json={})
    chain.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success"
                    and transactions(i)[0]["aml_status"] == "approved")
    assert paid["payment_details"]["amount_captured"] == {"asset_id": "USDT-ETH-TEST", "amount": "10.5"}
    assert Decimal(paid["amount_received_late"]["amount"]) == 0
