"""Paying an intent with real transactions on Anvil, watched by the running scheduler, read through the /v1 API."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.conftest import DENIED_PAYER
from tests.harness import Service, launch

PAYER = 1
WAIT_SECONDS = 60


def intent_of(shop: httpx.Client, intent_id: str) -> dict[str, Any]:
    return ok(shop.get(f"/v1/payment_intents/{intent_id}"))  # type: ignore[no-any-return]


def wait_for(shop: httpx.Client, intent_id: str, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        intent = intent_of(shop, intent_id)
        if check(intent):
            return intent
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {intent}"
        time.sleep(0.5)


def open_intent(shop: httpx.Client, asset_id: str, amount: str = "10.50", **fields: Any) -> tuple[str, dict[str, Any]]:
    intent = ok(shop.post("/v1/payment_intents", json={"amount": amount, "currency": "USD", **fields}))
    chosen = ok(shop.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": asset_id}}}))
    return intent["id"], chosen["payment_intents"][0]["payment_method_options"]["crypto"]


def transactions(intent: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for charge in intent["charges"] for t in (charge["transactions"] or [])]


def base_units(amount: str, decimals: int) -> int:
    return int(Decimal(amount).scaleb(decimals))


def test_a_usdt_payment_moves_through_confirmations_to_success(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST")
    assert quote["amount"] == "10.5"
    sent = chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    seen = wait_for(shop, intent_id, lambda i: any(t["tx_hash"] == sent.tx_hash for t in transactions(i)))
    assert seen["status"] == "Processing"
    assert transactions(seen)[0]["status"] == "submitted"
    chain.mine(1)
    wait_for(shop, intent_id, lambda i: transactions(i)[0]["status"] == "confirming")
    chain.mine(2)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    tx = transactions(paid)[0]
    assert (tx["status"], tx["aml_status"], tx["amount"]) == ("confirmed", "approved", "10500000")
    assert tx["source_address"].lower() == chain.accounts[PAYER].address.lower()
    details = paid["payment_details"]
    assert details["amount_captured"] == {"asset_id": "USDT-ETH-TEST", "amount": "10.5"}
    fee = Decimal(details["tx_fee"]["amount"])
    assert fee == Decimal("0.105")  # the default 1 % processing fee
    assert Decimal(details["net_amount"]["amount"]) == Decimal("10.5") - fee


def test_a_native_eth_payment_succeeds(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "ETH-ETH-TEST")
    assert Decimal(quote["amount"]) == Decimal("0.0035")  # 10.50 USD at 3000 USD per ETH
    chain.send_eth(PAYER, quote["deposit_address"], base_units(quote["amount"], 18))
    chain.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert Decimal(paid["payment_details"]["amount_captured"]["amount"]) == Decimal("0.0035")


def test_an_underpayment_is_partially_paid_until_topped_up(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDC-ETH-TEST")
    chain.send_token("USDC", PAYER, quote["deposit_address"], 4_000_000)
    chain.mine(3)
    partial = wait_for(shop, intent_id, lambda i: i["status"] == "PartialPaid")
    assert Decimal(partial["payment_details"]["amount_captured"]["amount"]) == Decimal("4")
    chain.send_token("USDC", PAYER, quote["deposit_address"], 6_500_000)
    chain.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert Decimal(paid["payment_details"]["amount_captured"]["amount"]) == Decimal("10.5")


def test_complete_on_first_payment_succeeds_with_any_amount(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST", complete_on_first_payment=True)
    chain.send_token("USDT", PAYER, quote["deposit_address"], 1_000_000)
    chain.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert Decimal(paid["payment_details"]["amount_captured"]["amount"]) == Decimal("1")


def test_an_overpayment_is_captured_and_recorded(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST")
    chain.send_token("USDT", PAYER, quote["deposit_address"], 12_000_000)
    chain.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert Decimal(paid["payment_details"]["amount_captured"]["amount"]) == Decimal("12")
    assert Decimal(paid["amount_overpaid"]["amount"]) == Decimal("1.5")


def test_funds_from_a_deny_listed_sender_are_rejected_and_frozen(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST")
    chain.send_token("USDT", DENIED_PAYER, quote["deposit_address"], 10_500_000)
    chain.mine(3)
    frozen = wait_for(shop, intent_id, lambda i: bool(transactions(i))
                      and transactions(i)[0]["aml_status"] == "rejected")
    assert transactions(frozen)[0]["aml_info"]
    assert Decimal(frozen["payment_details"]["frozen_amount"]["amount"]) == Decimal("10.5")
    assert Decimal(frozen["payment_details"]["amount_captured"]["amount"]) == Decimal("0")
    # The only transfer was rejected: nothing counts, the payer may pay again (DESIGN §4, payment_failed).
    assert frozen["status"] == "RequiresPaymentMethod"


def test_an_expired_intent_is_canceled_and_late_funds_are_still_recorded(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST", expires_in=2)
    canceled = wait_for(shop, intent_id, lambda i: i["status"] == "Canceled")
    assert canceled["cancellation_reason"] == "expired" and canceled["canceled_at"] > 0
    late = chain.send_token("USDT", PAYER, quote["deposit_address"], 10_500_000)
    chain.mine(3)
    recorded = wait_for(shop, intent_id, lambda i: any(
        t["tx_hash"] == late.tx_hash and t["status"] == "confirmed" for t in transactions(i)))
    assert recorded["status"] == "Canceled"
    assert Decimal(recorded["amount_received_late"]["amount"]) == Decimal("10.5")


def test_a_paygate_killed_between_two_payments_counts_both_once_after_restart(
        chain: Chain, paygate: Service, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "USDT-ETH-TEST")
    first = chain.send_token("USDT", PAYER, quote["deposit_address"], 4_000_000)
    wait_for(shop, intent_id, lambda i: any(t["tx_hash"] == first.tx_hash for t in transactions(i)))
    assert paygate.process is not None
    paygate.process.send_signal(signal.SIGKILL)  # no shutdown: whatever was in flight is lost
    paygate.process.wait(timeout=10)
    second = chain.send_token("USDT", PAYER, quote["deposit_address"], 6_500_000)  # arrives while it is down
    chain.mine(3)
    launch(paygate)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert sorted(t["tx_hash"] for t in transactions(paid)) == sorted([first.tx_hash, second.tx_hash])
    assert Decimal(paid["payment_details"]["amount_captured"]["amount"]) == Decimal("10.5")
