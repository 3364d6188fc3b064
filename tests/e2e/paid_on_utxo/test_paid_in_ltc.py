"""Paying an intent in LTC on a real litecoind -regtest, watched by the running scheduler, read through /v1: the
UTXO rail through the same intents, watcher and screening as EVM (issue 34, DESIGN §18)."""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.paid_on_utxo.conftest import DENIED_WALLET
from tests.litecoin import Litecoin

LTC = "LTC-LTC-TEST"
WAIT_SECONDS = 60
QUIET_SECONDS = 6  # several watcher passes: what would have been counted by then would show


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


def open_intent(shop: httpx.Client, amount: str = "10.50", **fields: Any) -> tuple[str, dict[str, Any]]:
    intent = ok(shop.post("/v1/payment_intents", json={"amount": amount, "currency": "USD", **fields}))
    chosen = ok(shop.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": LTC}}}))
    return intent["id"], chosen["payment_intents"][0]["payment_method_options"]["crypto"]


def transactions(intent: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for charge in intent["charges"] for t in (charge["transactions"] or [])]


def captured(intent: dict[str, Any]) -> Decimal:
    return Decimal(str(intent["payment_details"]["amount_captured"]["amount"]))


def test_an_ltc_quote_is_a_bech32_deposit_address_and_the_price_at_80_usd(shop: httpx.Client) -> None:
    _, quote = open_intent(shop)
    assert quote["deposit_address"].startswith("rltc1q")  # native segwit on Litecoin regtest (BIP-84)
    assert Decimal(quote["amount"]) == Decimal("0.13125")  # 10.50 USD at the default 80 USD per LTC
    assert (quote["network"], quote["decimals"]) == ("LTC-TEST", 8)


def test_an_exact_ltc_payment_moves_through_confirmations_to_success(litecoin: Litecoin, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop)
    txid = litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]))
    litecoin.mine(1)
    seen = wait_for(shop, intent_id, lambda i: any(t["tx_hash"] == txid for t in transactions(i)))
    assert transactions(seen)[0]["status"] in ("submitted", "confirming")
    litecoin.mine(2)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    tx = transactions(paid)[0]
    assert (tx["status"], tx["aml_status"], tx["amount"]) == ("confirmed", "approved", "13125000")  # litoshis
    assert tx["source_address"].startswith("rltc1")  # the paying transaction's first input's address
    assert captured(paid) == Decimal("0.13125")


def test_an_ltc_payment_in_two_transactions_is_partially_paid_then_paid(litecoin: Litecoin,
                                                                        shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop)
    litecoin.pay(quote["deposit_address"], Decimal("0.1"))
    litecoin.mine(3)
    partial = wait_for(shop, intent_id, lambda i: i["status"] == "PartialPaid")
    assert captured(partial) == Decimal("0.1")
    litecoin.pay(quote["deposit_address"], Decimal("0.03125"))
    litecoin.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert captured(paid) == Decimal("0.13125")
    assert len(transactions(paid)) == 2


def test_an_ltc_overpayment_is_captured_and_recorded(litecoin: Litecoin, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop)
    litecoin.pay(quote["deposit_address"], Decimal("0.2"))
    litecoin.mine(3)
    paid = wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert captured(paid) == Decimal("0.2")
    assert Decimal(str(paid["amount_overpaid"]["amount"])) == Decimal("0.06875")


def test_a_payment_reorganised_away_before_confirmation_is_not_counted(litecoin: Litecoin,
                                                                      shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop)
    txid = litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]), replaceable=True)
    block = litecoin.mine(1)[0]
    wait_for(shop, intent_id, lambda i: any(t["tx_hash"] == txid for t in transactions(i)))
    litecoin.call("invalidateblock", block)  # the payment goes back to the mempool …
    litecoin.replace(txid, str(litecoin.wallet("getnewaddress", "", "bech32")))  # … and is double-spent there
    litecoin.mine(4)
    # A reverted transfer leaves the intent's answer; the double-spend never reached the deposit address.
    reverted = wait_for(shop, intent_id, lambda i: transactions(i) == [])
    time.sleep(QUIET_SECONDS)
    after = intent_of(shop, intent_id)
    assert transactions(after) == [] and captured(after) == 0 and after["status"] != "Success"
    assert captured(reverted) == 0


def test_a_payment_replaced_in_the_mempool_to_another_address_is_never_counted(litecoin: Litecoin,
                                                                               shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop)
    txid = litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]), replaceable=True)
    litecoin.replace(txid, str(litecoin.wallet("getnewaddress", "", "bech32")))
    litecoin.mine(3)
    time.sleep(QUIET_SECONDS)
    intent = intent_of(shop, intent_id)
    assert transactions(intent) == [] and captured(intent) == 0


def test_ltc_from_a_deny_listed_sender_is_rejected_and_frozen(litecoin: Litecoin, shop: httpx.Client,
                                                              denied_sender: str) -> None:
    intent_id, quote = open_intent(shop)
    litecoin.pay_from(DENIED_WALLET, denied_sender, quote["deposit_address"], Decimal(quote["amount"]))
    litecoin.mine(3)
    frozen = wait_for(shop, intent_id, lambda i: bool(transactions(i))
                      and transactions(i)[0]["aml_status"] == "rejected")
    assert transactions(frozen)[0]["source_address"] == denied_sender
    assert Decimal(str(frozen["payment_details"]["frozen_amount"]["amount"])) == Decimal("0.13125")
    assert captured(frozen) == 0
