"""Sweeps of LTC deposit addresses into the merchant's LTC treasury on a real litecoind -regtest (issue 34): the
same sweep job as EVM, through the UTXO rail's payouts; the network fee comes out of the amount swept. Then
reconciliation reads the node (scantxoutset) against the ledger: no drift after sweeps, coins sent by hand are."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.paid_on_utxo.conftest import DENIED_WALLET
from tests.e2e.paid_on_utxo.test_paid_in_ltc import open_intent, wait_for
from tests.e2e.paid_on_utxo.test_refunds_in_ltc import ltc_treasury, merchant_id
from tests.harness import Service
from tests.harness import paygate as run_paygate
from tests.litecoin import Litecoin

WAIT_SECONDS = 90


def held(litecoin: Litecoin, address: str) -> Decimal:
    answer = litecoin.call("scantxoutset", "start", [f"addr({address})"])
    return Decimal(str(answer["total_amount"]))


def wait_swept(litecoin: Litecoin, shop: httpx.Client, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen: list[dict[str, Any]] = ok(shop.get("/v1/sweeps", params={"page_size": 50}))["sweeps"]
        if len([s for s in seen if s["status"] == "succeeded"]) >= count:
            return seen
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        litecoin.mine(1)
        time.sleep(1)


def test_two_ltc_payments_are_swept_into_the_ltc_treasury_less_the_network_fee(
        litecoin: Litecoin, paygate: Service, shop: httpx.Client) -> None:
    treasury = ltc_treasury(paygate, merchant_id(shop))
    before = held(litecoin, treasury)
    deposits = []
    for _ in range(2):
        intent_id, quote = open_intent(shop)
        litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]))
        litecoin.mine(3)
        wait_for(shop, intent_id, lambda i: i["status"] == "Success")
        deposits.append(quote["deposit_address"])
    found = wait_swept(litecoin, shop, 2)
    done = [s for s in found if s["status"] == "succeeded"]
    assert sorted(s["source_address"] for s in done) == sorted(deposits)
    assert {s["destination_address"] for s in done} == {treasury}
    assert [s["amount"] for s in done] == ["0.13125", "0.13125"]
    fees = sum((Decimal(s["network_fee"]) for s in done), Decimal(0))
    assert Decimal(0) < fees < Decimal("0.001")
    assert all(held(litecoin, a) == 0 for a in deposits)
    assert held(litecoin, treasury) - before == Decimal("0.2625") - fees


def test_a_sweep_moves_only_the_approved_coins_and_leaves_a_frozen_coin_at_the_deposit_address(
        litecoin: Litecoin, paygate: Service, shop: httpx.Client, denied_sender: str) -> None:
    treasury = ltc_treasury(paygate, merchant_id(shop))
    before = held(litecoin, treasury)
    intent_id, quote = open_intent(shop)
    deposit = quote["deposit_address"]
    # Paid in two coins, and a deny-listed sender's larger coin beside them: the smallest single coin that would
    # cover the sweep's 0.13125 is the frozen one, which must never move.
    litecoin.pay(deposit, Decimal("0.1"))
    frozen = litecoin.pay_from(DENIED_WALLET, denied_sender, deposit, Decimal("0.2"))
    litecoin.pay(deposit, Decimal("0.03125"))
    litecoin.mine(3)
    wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    swept = [s for s in wait_swept(litecoin, shop, 1) if s["source_address"] == deposit]
    assert [(s["status"], s["amount"]) for s in swept] == [("succeeded", "0.13125")]
    [vout] = [o["n"] for o in litecoin.call("getrawtransaction", frozen, True)["vout"]
              if o["scriptPubKey"].get("address", (o["scriptPubKey"].get("addresses") or [""])[0]) == deposit]
    assert litecoin.call("gettxout", frozen, vout) is not None  # the frozen coin itself, unspent
    assert held(litecoin, deposit) == Decimal("0.2")
    fee = Decimal(swept[0]["network_fee"])
    assert held(litecoin, treasury) - before == Decimal("0.13125") - fee


def reconcile(paygate: Service) -> tuple[int, dict[str, Any]]:
    done = run_paygate(paygate.env, paygate.workdir, "treasury", "reconcile", "--json")
    assert done.returncode in (0, 3), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_after_ltc_sweeps_the_node_holds_what_the_ledger_says_and_coins_sent_by_hand_are_drift(
        litecoin: Litecoin, paygate: Service, shop: httpx.Client) -> None:
    treasury = ltc_treasury(paygate, merchant_id(shop))
    intent_id, quote = open_intent(shop)
    litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]))
    litecoin.mine(3)
    wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    wait_swept(litecoin, shop, 1)
    ours = {treasury, quote["deposit_address"]}
    _, report = reconcile(paygate)
    assert [d for d in report["drifted"] if d["address"] in ours] == [], report
    litecoin.pay(treasury, Decimal("0.0123"))
    litecoin.mine(1)
    status, report = reconcile(paygate)
    assert status == 3, report
    drift = [(d["asset_id"], d["role"], d["drift"]) for d in report["drifted"] if d["address"] in ours]
    assert drift == [("LTC-LTC-TEST", "treasury", "0.0123")], report
