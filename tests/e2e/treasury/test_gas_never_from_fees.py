"""Who pays the gas of the treasury's transactions (DESIGN §15, server/treasury/gas.py), on Anvil through /v1 and the
scheduler: the merchant's available ETH at the treasury, then ETH sent there by hand, set aside before signing;
never paygate's processing fees held there. A transaction neither covers waits, and goes out once the merchant
funds it. What is left of a gas top-up goes back to whoever paid for it, and reconciliation still agrees with the
chain."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from typing import Any

import pytest

from server.payment_intents.totals import text
from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.support import FUNDER, created, finished, paid_intent
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.ledger_support import ledger_at, wait_logged
from tests.e2e.treasury.payout_support import available, verified_address, wait_payout
from tests.e2e.treasury.test_record_funding import CLI_SECONDS, record
from tests.e2e.treasury.test_sweeps import eth, sweeps, wait_sweeps
from tests.harness import Service
from tests.harness import paygate as run_paygate

ETH, USDT = "ETH-ETH-TEST", "USDT-ETH-TEST"
FEE = Decimal("0.01")  # paygate's 1 % of a 1 ETH payment
# A hang guard, not a speed claim: a payment, its sweep and a refund take a dozen scheduler passes, which took
# minutes on this 2-core machine shared with other test runs.
pytestmark = pytest.mark.timeout(600)


def treasury_eth(chain: Chain, shop: Merchant) -> Decimal:
    return Decimal(eth(chain, shop.treasury)).scaleb(-18)


def only_paygates_fee_in_the_treasury(chain: Chain, shop: Merchant, paygate: Service) -> None:
    """1 ETH paid and swept in, then all the merchant's available ETH refunded: the treasury holds on chain exactly
    paygate's processing fee, and the merchant has no ETH."""
    sale = paid_intent(chain, shop, ETH, "3000")  # 1 ETH at 3000 USD
    wait_sweeps(chain, shop, 1)
    refund = created(shop, sale["id"], text(Decimal(available(shop, ETH))))
    assert finished(chain, shop, refund["id"])["status"] == "Success"
    assert available(shop, ETH) == "0"
    assert treasury_eth(chain, shop) == ledger_at(paygate, shop.treasury, ETH)["fees"] == FEE


def opened_sweep(chain: Chain, shop: Merchant, asset_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while True:
        found = [s for s in sweeps(shop) if s["asset_id"] == asset_id]
        if found:
            return found[0]
        assert time.monotonic() < deadline, sweeps(shop)
        chain.mine(1)
        time.sleep(0.5)


def test_a_token_sweep_waits_for_its_gas_rather_than_spend_paygates_fees(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    only_paygates_fee_in_the_treasury(chain, shop, paygate)
    paid_intent(chain, shop, USDT, "10.50")
    sweep = opened_sweep(chain, shop, USDT)
    wait_logged(chain, paygate, msg="sweep waits", sweep=sweep["id"], reason="insufficient_gas")
    again = next(s for s in sweeps(shop) if s["id"] == sweep["id"])
    assert (again["status"], again["transactions"]) == ("pending", []), again
    assert treasury_eth(chain, shop) == ledger_at(paygate, shop.treasury, ETH)["fees"] == FEE
    assert available(shop, ETH) == "0"


def test_eth_sent_by_hand_pays_a_token_sweeps_gas_never_beyond_itself_and_its_leftover_stays_gas(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    only_paygates_fee_in_the_treasury(chain, shop, paygate)
    by_hand = Decimal("0.001")
    chain.send_eth(FUNDER, shop.treasury, int(by_hand.scaleb(18)))  # the merchant's gas, never recorded
    paid_intent(chain, shop, USDT, "10.50")
    done = wait_sweeps(chain, shop, 2)
    token_sweep = next(s for s in done if s["asset_id"] == USDT and s["status"] == "succeeded")
    assert [t["type"] for t in token_sweep["transactions"]] == ["gas", "sweep"]
    at_treasury = ledger_at(paygate, shop.treasury, ETH)
    seen = {"chain": treasury_eth(chain, shop), **at_treasury}
    assert at_treasury["fees"] == FEE and treasury_eth(chain, shop) >= FEE, seen  # paygate's fees are whole
    assert -by_hand <= at_treasury["gas"] < 0, seen  # gas spent no more than was sent by hand
    assert available(shop, ETH) == "0"  # and the merchant was given no ETH it never had
    deposit = token_sweep["source_address"]
    at_deposit = ledger_at(paygate, deposit, ETH)
    # The top-up's leftover after the token transfer's gas: gas coin there, as it was paid, as the chain holds.
    assert at_deposit.get("available", Decimal(0)) == 0, at_deposit
    assert at_deposit["gas"] == Decimal(eth(chain, deposit)).scaleb(-18) > 0, at_deposit


def drifted(paygate: Service, places: set[str]) -> list[dict[str, Any]]:
    done = run_paygate(paygate.env, paygate.workdir, "treasury", "reconcile", "--json", timeout=CLI_SECONDS)
    assert done.returncode in (0, 3), done.stderr
    return [d for d in json.loads(done.stdout)["drifted"] if d["address"] in places]


def test_reconciliation_agrees_with_the_chain_once_the_eth_sent_by_hand_is_recorded(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    funding = chain.send_eth(FUNDER, shop.treasury, 10**16)
    paid_intent(chain, shop, USDT, "10.50")
    [sweep] = wait_sweeps(chain, shop, 1)
    places = {shop.treasury.lower(), sweep["source_address"].lower()}
    unrecorded = [(d["address"], d["asset_id"]) for d in drifted(paygate, places)]
    assert unrecorded == [(shop.treasury.lower(), ETH)]  # only what was sent by hand and not recorded
    record(paygate, funding.tx_hash)
    assert drifted(paygate, places) == []


def test_a_payout_waits_while_its_gas_is_not_covered_and_goes_once_the_merchant_funds_it(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    paid_intent(chain, shop, ETH, "3000")
    wait_sweeps(chain, shop, 1)
    to = verified_address(chain, shop, fund=False)  # its micro-deposit paid out of the merchant's available ETH
    whole = ledger_at(paygate, shop.treasury, ETH)["available"]
    made = ok(shop.api.post("/v1/payouts", json={"source_coin": ETH, "source_amount": text(whole),
                                                  "receive_account_id": to["id"]}))
    wait_logged(chain, paygate, msg="payout waits", payout=made["id"], reason="insufficient_gas")
    waiting = ok(shop.api.get(f"/v1/payouts/{made['id']}"))
    assert (waiting["status"], waiting["transactions"]) == ("approved", []), waiting
    assert treasury_eth(chain, shop) >= ledger_at(paygate, shop.treasury, ETH)["fees"] == FEE
    by_hand = Decimal("0.001")
    chain.send_eth(FUNDER, shop.treasury, int(by_hand.scaleb(18)))  # its gas, by hand
    done = wait_payout(chain, shop, made["id"], ("paid", "failed"))
    assert done["status"] == "paid", done
    at_treasury = ledger_at(paygate, shop.treasury, ETH)
    assert treasury_eth(chain, shop) >= at_treasury["fees"] == FEE, at_treasury
    assert -by_hand <= at_treasury["gas"] < 0, at_treasury
