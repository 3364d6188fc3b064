"""Which intent a payment to a customer's permanent deposit address pays, when several intents share that address.

A transfer goes to the oldest open intent that still needs funds; funds still confirming count as covering what they
cover, so an intent they already cover receives no more. Funds that can never count (rejected by AML) cover nothing.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.conftest import DENIED_PAYER
from tests.e2e.paid_on_chain.test_paid_on_chain import transactions, wait_for

PAYER = 7
USDT = "USDT-ETH-TEST"


def shared_deposit(shop: httpx.Client, count: int) -> tuple[list[str], str]:
    """`count` intents of 10.50 USD of one customer, oldest first, all paying to one permanent USDT address."""
    customer = ok(shop.post("/v1/customers", json={"email": "ann@example.com"}))
    body = {"amount": "10.50", "currency": "USD", "customer": customer["id"], "permanent_deposit": True,
            "permanent_deposit_asset_id": USDT}
    ids, addresses = [], set()
    for _ in range(count):
        intent = ok(shop.post("/v1/payment_intents", json=body))
        chosen = ok(shop.post(f"/v1/payment_intents/{intent['id']}", json={
            "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": USDT}}}))
        ids.append(intent["id"])
        addresses.add(chosen["payment_intents"][0]["payment_method_options"]["crypto"]["deposit_address"])
    [address] = addresses
    return ids, address


def settled(intent: dict[str, Any]) -> bool:
    """Every transfer of the intent is confirmed and screened."""
    txs = transactions(intent)
    return bool(txs) and all(t["status"] == "confirmed" and t["aml_status"] for t in txs)


def captured(intent: dict[str, Any]) -> Decimal:
    return Decimal(intent["payment_details"]["amount_captured"]["amount"])


def test_a_payment_made_while_the_first_intent_is_confirming_pays_the_next_intent(
        chain: Chain, shop: httpx.Client) -> None:
    (a, b), address = shared_deposit(shop, 2)
    chain.send_token("USDT", PAYER, address, 10_500_000)  # pays A in full, not yet confirmed
    wait_for(shop, a, lambda i: i["status"] == "Processing")
    chain.send_token("USDT", PAYER, address, 10_500_000)  # pays B, as B's checkout asked
    wait_for(shop, b, lambda i: i["status"] == "Processing")
    chain.mine(3)
    paid_a = wait_for(shop, a, lambda i: i["status"] == "Success" and settled(i))
    paid_b = wait_for(shop, b, lambda i: i["status"] == "Success" and settled(i))
    assert (captured(paid_a), Decimal(paid_a["amount_overpaid"]["amount"])) == (Decimal("10.5"), 0)
    assert (captured(paid_b), Decimal(paid_b["amount_overpaid"]["amount"])) == (Decimal("10.5"), 0)
    assert len(transactions(paid_a)) == len(transactions(paid_b)) == 1


def test_a_payment_made_while_confirming_funds_cover_only_part_of_the_first_intent_tops_it_up(
        chain: Chain, shop: httpx.Client) -> None:
    (a, b), address = shared_deposit(shop, 2)
    chain.send_token("USDT", PAYER, address, 5_000_000)  # part of A, not yet confirmed
    wait_for(shop, a, lambda i: i["status"] == "Processing")
    chain.send_token("USDT", PAYER, address, 5_500_000)  # the rest of A
    wait_for(shop, a, lambda i: len(transactions(i)) == 2)
    chain.mine(3)
    paid_a = wait_for(shop, a, lambda i: i["status"] == "Success" and settled(i))
    assert captured(paid_a) == Decimal("10.5")
    unpaid_b = ok(shop.get(f"/v1/payment_intents/{b}"))
    assert unpaid_b["status"] == "RequiresPaymentMethod" and transactions(unpaid_b) == []


def test_funds_rejected_by_aml_cover_nothing_so_the_next_payment_still_pays_that_intent(
        chain: Chain, shop: httpx.Client) -> None:
    (a, b), address = shared_deposit(shop, 2)
    chain.send_token("USDT", DENIED_PAYER, address, 10_500_000)
    chain.mine(3)
    wait_for(shop, a, lambda i: i["status"] == "RequiresPaymentMethod" and settled(i))  # rejected and frozen
    chain.send_token("USDT", PAYER, address, 10_500_000)
    chain.mine(3)
    paid_a = wait_for(shop, a, lambda i: i["status"] == "Success" and settled(i))
    assert captured(paid_a) == Decimal("10.5")
    assert paid_a["payment_details"]["frozen_amount"]["amount"] == "10.5"
    assert ok(shop.get(f"/v1/payment_intents/{b}"))["status"] == "RequiresPaymentMethod"
