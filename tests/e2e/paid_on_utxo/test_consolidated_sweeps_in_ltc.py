"""Sweeps of several LTC deposit addresses due together are paid by one transaction (issue 34): every deposit
address's coins in, one output to the treasury, one network fee shared among the sweeps by the inputs each brings."""

from __future__ import annotations

import signal
from decimal import Decimal

import httpx

from tests.e2e.paid_on_utxo.test_paid_in_ltc import open_intent, wait_for
from tests.e2e.paid_on_utxo.test_refunds_in_ltc import ltc_treasury, merchant_id
from tests.e2e.paid_on_utxo.test_sweeps_in_ltc import held, wait_swept
from tests.harness import Service, launch
from tests.litecoin import Litecoin


def restart(paygate: Service, *, sweeps: bool) -> None:
    assert paygate.process is not None
    paygate.process.send_signal(signal.SIGTERM)
    paygate.process.wait(timeout=30)
    paygate.env["PAYGATE_SWEEPS"] = "true" if sweeps else "false"
    launch(paygate)


def test_three_deposit_addresses_due_together_are_swept_by_one_transaction(
        litecoin: Litecoin, paygate: Service, shop: httpx.Client) -> None:
    restart(paygate, sweeps=False)  # the three payments are all credited before any sweep opens
    treasury = ltc_treasury(paygate, merchant_id(shop))
    before = held(litecoin, treasury)
    paid = [open_intent(shop) for _ in range(3)]
    for _, quote in paid:
        litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]))
    litecoin.mine(3)
    for intent_id, _ in paid:
        wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    restart(paygate, sweeps=True)
    deposits = {quote["deposit_address"] for _, quote in paid}
    done = [s for s in wait_swept(litecoin, shop, 3) if s["source_address"] in deposits]
    assert len(done) == 3 and all(s["status"] == "succeeded" for s in done), done
    hashes = {t["tx_hash"] for s in done for t in s["transactions"]}
    assert len(hashes) == 1
    tx = litecoin.call("getrawtransaction", hashes.pop(), True)
    assert len(tx["vin"]) == 3 and len(tx["vout"]) == 1
    fees = [Decimal(s["network_fee"]) for s in done]
    spent = sum((Decimal(str(litecoin.call("getrawtransaction", v["txid"], True)["vout"][v["vout"]]["value"]))
                 for v in tx["vin"]), Decimal(0))
    assert sum(fees) == spent - Decimal(str(tx["vout"][0]["value"])) > 0  # one fee, shared out exactly
    assert max(fees) - min(fees) <= Decimal("0.00000001")  # one input each: equal shares, to the litoshi
    assert all(held(litecoin, a) == 0 for a in deposits)
    assert held(litecoin, treasury) - before == Decimal("0.39375") - sum(fees)
