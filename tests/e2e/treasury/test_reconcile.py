"""Reconciliation on Anvil (DESIGN §15): after payments and their sweeps the chain holds what the ledger says, at
every deposit address and at the treasury; funds sent to the treasury by hand are drift, reported by
`paygate treasury reconcile` and by the scheduler job's log line, and never written into the ledger."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from typing import Any

from tests.chain import Chain
from tests.e2e.refunds.support import fund_treasury, paid_intent
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.test_sweeps import wait_sweeps
from tests.harness import Service
from tests.harness import paygate as run_paygate

EXTRA_ENV = {"PAYGATE_RECONCILE_SECONDS": "1"}
WAIT_SECONDS = 30


def reconcile(paygate: Service) -> tuple[int, dict[str, Any]]:
    done = run_paygate(paygate.env, paygate.workdir, "treasury", "reconcile", "--json")
    assert done.returncode in (0, 3), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_after_payments_and_sweeps_the_chain_holds_what_the_ledger_says(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    paid_intent(chain, shop, "ETH-ETH-TEST", "30")  # 0.01 ETH, swept natively: nothing sent to the treasury by hand
    paid_intent(chain, shop, "ETH-ETH-TEST", "15")
    wait_sweeps(chain, shop, 2)
    status, report = reconcile(paygate)
    assert status == 0 and report["drifted"] == [], report
    eth = next(a for a in report["assets"] if a["asset_id"] == "ETH-ETH-TEST")
    assert Decimal(eth["ledger"]) == Decimal(eth["chain"]) > Decimal("0.014") and eth["drift"] == "0", eth


def test_funds_sent_to_the_treasury_by_hand_are_reported_as_drift(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    fund_treasury(chain, shop, wei=12345 * 10**9, usdt=2_500_000)
    status, report = reconcile(paygate)
    assert status == 3, report
    mine = {(d["asset_id"], d["drift"]) for d in report["drifted"]
            if d["address"] == shop.treasury.lower() and d["role"] == "treasury"}
    assert mine == {("ETH-ETH-TEST", "0.000012345"), ("USDT-ETH-TEST", "2.5")}, report
    assert all(d["ledger"] == "0" for d in report["drifted"] if d["address"] == shop.treasury.lower())
    # The scheduler's job says so too, in its log.
    deadline = time.monotonic() + WAIT_SECONDS
    while shop.treasury.lower() not in paygate.log() or "treasury drift" not in paygate.log():
        assert time.monotonic() < deadline, paygate.log()[-3000:]
        time.sleep(0.5)
    line = next(json.loads(x) for x in paygate.log().splitlines()
                if "treasury drift" in x and shop.treasury.lower() in x and "USDT-ETH-TEST" in x)
    assert line["level"] == "warning" and line["drift"] == "2.5" and line["role"] == "treasury", line
