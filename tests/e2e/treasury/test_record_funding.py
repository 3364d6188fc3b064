"""`paygate treasury record-funding` on Anvil: funds a merchant sends to its own treasury by hand are not in the
ledger (reconciliation reports them as drift). The gas a token refund pays from them never takes the merchant's
available ETH below zero: it is the treasury's `gas` holder's. Recording the funding transaction pays that back first
and posts the rest as the merchant's available money: the treasury no longer drifts, and recording it again posts
nothing. Sweeps are off, so nothing but the test and the refund moves the treasury's coin."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from tests.chain import Chain
from tests.e2e.refunds.support import FUNDER, created, paid_intent, wait_refund
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available
from tests.e2e.treasury.test_sweeps import eth as eth_of
from tests.harness import Service
from tests.harness import paygate as run_paygate

EXTRA_ENV = {"PAYGATE_SWEEPS": "false"}
ETH, USDT = "ETH-ETH-TEST", "USDT-ETH-TEST"
# A hang guard, not a speed claim: one CLI run is ~6 s of CPU (imports, composition, schema check), which took 45 s
# of wall time at a load average of 24 on this 2-core machine, past the harness's 60 s default.
CLI_SECONDS = 240


def record(paygate: Service, tx_hash: str) -> list[dict[str, Any]]:
    done = run_paygate(paygate.env, paygate.workdir, "treasury", "record-funding", "--network", "ETH-TEST",
                       "--tx", tx_hash, "--json", timeout=CLI_SECONDS)
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


def treasury_drift(paygate: Service, shop: Merchant) -> dict[str, str]:
    done = run_paygate(paygate.env, paygate.workdir, "treasury", "reconcile", "--json", timeout=CLI_SECONDS)
    assert done.returncode in (0, 3), done.stderr
    return {d["asset_id"]: d["drift"] for d in json.loads(done.stdout)["drifted"]
            if d["address"] == shop.treasury.lower()}


def test_a_recorded_funding_is_available_and_no_longer_drift_and_is_posted_once(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    sent = chain.send_eth(FUNDER, shop.treasury, 2 * 10**16)
    chain.mine(3)
    assert treasury_drift(paygate, shop) == {ETH: "0.02"}
    [funding] = record(paygate, sent.tx_hash)
    assert (funding["merchant_id"], funding["asset_id"], funding["amount"], funding["posted"]) == (
        shop.merchant["merchant_id"], ETH, "0.02", True)
    assert funding["address"] == shop.treasury.lower()
    assert available(shop, ETH) == "0.02"
    assert treasury_drift(paygate, shop) == {}
    [again] = record(paygate, sent.tx_hash)
    assert again["posted"] is False and available(shop, ETH) == "0.02"


def test_a_token_refunds_gas_from_hand_funded_eth_never_takes_available_below_zero_and_recording_repays_it(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    intent = paid_intent(chain, shop, USDT, "10.50")
    eth = chain.send_eth(FUNDER, shop.treasury, 10**16)  # gas for the refund, sent by hand
    usdt = chain.send_token("USDT", FUNDER, shop.treasury, 5_000_000)  # the refund's tokens, sent by hand
    chain.mine(3)
    refund = created(shop, intent["id"], "4")
    wait_refund(chain, shop, refund["id"], lambda r: r["status"] == "Success")
    left = Decimal(eth_of(chain, shop.treasury)).scaleb(-18)
    assert left < Decimal("0.01")  # the refund's gas came out of the hand-funded ETH
    # The rule: the merchant had no available ETH, so the gas is the treasury's `gas` holder's, never below zero.
    assert available(shop, ETH) == "0"
    assert treasury_drift(paygate, shop) == {ETH: "0.01", USDT: "5"}  # only what was sent by hand
    assert record(paygate, eth.tx_hash)[0]["amount"] == "0.01"
    assert record(paygate, usdt.tx_hash)[0]["amount"] == "5"
    assert Decimal(available(shop, ETH)) == left  # the funding paid the gas back first; the rest is available
    assert Decimal(available(shop, USDT)) == Decimal("10.395") + 5 - 4  # the payment less its 1 % fee
    assert treasury_drift(paygate, shop) == {}


def test_a_transaction_that_is_not_a_transfer_to_a_treasury_is_refused_and_posts_nothing(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    elsewhere = chain.send_eth(FUNDER, "0x" + "12" * 20, 10**15)
    chain.mine(3)
    for tx, says in [(elsewhere.tx_hash, "not a mined, successful transfer to a treasury"),
                     ("0x1234", "is not a transaction hash")]:
        done = run_paygate(paygate.env, paygate.workdir, "treasury", "record-funding", "--network", "ETH-TEST",
                           "--tx", tx, timeout=CLI_SECONDS)
        assert done.returncode == 2 and says in done.stderr, done.stderr
    assert available(shop, ETH) == "0"
