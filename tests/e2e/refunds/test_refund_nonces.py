"""The treasury's nonces against a real chain: a refused broadcast, a nonce taken by another transaction, a stuck
transaction and a nonce gap never lose a refund, never pay one twice, and never block the refunds after it."""

from __future__ import annotations

import time

from web3.exceptions import TransactionNotFound

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import (
    PAYER,
    chain_nonce,
    created,
    finished,
    fund_treasury,
    manual_mining,
    paid_intent,
    rpc,
    usdt_balance,
    wait_sent,
)
from tests.harness import TEST_JOB_SECONDS

STUCK_SECONDS = 4
# Sweeps off: these tests stage the treasury's nonces and balance by hand (a dropped transaction, a nonce moved, a
# treasury emptied) and count them exactly. Refunds beside sweeps' top-ups on one treasury:
# tests/e2e/treasury/test_shared_treasury_nonces.py and tests/e2e/refunds/test_refund_crash.py.
EXTRA_ENV = {"PAYGATE_REFUND_STUCK_SECONDS": str(STUCK_SECONDS), "PAYGATE_SWEEPS": "false"}
SENDER_PASS_SECONDS = TEST_JOB_SECONDS["send_refunds"]
GWEI = 10**9


def _status(shop: Shop, refund_id: str) -> str:
    return str(ok(shop.api.get(f"/v1/refunds/{refund_id}"))["status"])


def test_a_refused_broadcast_keeps_the_refund_processing_and_the_refunds_after_it_still_go_out(
        chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    payer = chain.accounts[PAYER].address
    before = usdt_balance(chain, payer)
    with manual_mining(chain):
        first = created(shop, intent["id"], "2")
        first_tx = wait_sent(chain, shop, first["id"])[0]
        second = created(shop, intent["id"], "3")
        wait_sent(chain, shop, second["id"])
        # The first transaction vanishes and the treasury cannot pay gas: sending it again is refused. Its nonce is
        # still free, so the refund may yet be paid: it must not fail (a merchant would refund again: paid twice).
        rpc(chain, "anvil_dropTransaction", first_tx["tx_hash"])
        funds = chain.w3.eth.get_balance(chain.w3.to_checksum_address(shop.treasury))
        rpc(chain, "anvil_setBalance", shop.treasury, hex(0))
        deadline = time.monotonic() + 3 * SENDER_PASS_SECONDS + 1
        while time.monotonic() < deadline:
            assert _status(shop, first["id"]) == "Processing"
            time.sleep(0.5)
        rpc(chain, "anvil_setBalance", shop.treasury, hex(funds))
    done = [finished(chain, shop, first["id"]), finished(chain, shop, second["id"])]
    assert [r["status"] for r in done] == ["Success", "Success"], done
    assert chain_nonce(chain, shop.treasury) == 2  # the gap at the first nonce was filled by the first refund
    assert usdt_balance(chain, payer) - before == 5_000_000


def test_a_nonce_taken_by_another_transaction_sends_the_refund_again_with_a_fresh_nonce(
        chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    payer = chain.accounts[PAYER].address
    before = usdt_balance(chain, payer)
    with manual_mining(chain):
        rf = created(shop, intent["id"], "2")
        lost = wait_sent(chain, shop, rf["id"])[0]
        rpc(chain, "anvil_dropTransaction", lost["tx_hash"])
        # Another transaction of the treasury (e.g. the merchant moving funds) used the refund's nonce.
        rpc(chain, "anvil_setNonce", shop.treasury, hex(chain_nonce(chain, shop.treasury) + 1))
    done = finished(chain, shop, rf["id"])
    assert done["status"] == "Success", done
    assert [t["status"] for t in done["transactions"]] == ["failed", "confirmed"]
    assert done["transactions"][0]["tx_hash"] == lost["tx_hash"]
    try:
        chain.w3.eth.get_transaction_receipt(lost["tx_hash"])
        raise AssertionError("the lost transaction was mined")
    except TransactionNotFound:
        pass
    assert usdt_balance(chain, payer) - before == 2_000_000  # paid once, by the second transaction


def test_a_stuck_refund_is_replaced_with_bumped_fees_and_the_replacement_counts(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    payer = chain.accounts[PAYER].address
    before = usdt_balance(chain, payer)
    with manual_mining(chain):
        rf = created(shop, intent["id"], "2")
        original = chain.w3.eth.get_transaction(wait_sent(chain, shop, rf["id"])[0]["tx_hash"])
        # The base fee jumps above what the transaction offers and stays there: it can never be mined as signed.
        base = 4 * int(original["maxFeePerGas"])
        deadline = time.monotonic() + 60
        while (seen := ok(shop.api.get(f"/v1/refunds/{rf['id']}")))["status"] not in ("Success", "Failed"):
            assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
            rpc(chain, "anvil_setNextBlockBaseFeePerGas", hex(base))
            chain.mine(1)
            time.sleep(0.5)
    assert seen["status"] == "Success", seen
    assert len(seen["transactions"]) == 1
    mined = chain.w3.eth.get_transaction(seen["transactions"][0]["tx_hash"])
    assert mined["hash"] != original["hash"] and mined["nonce"] == original["nonce"]
    assert mined["maxFeePerGas"] * 8 >= original["maxFeePerGas"] * 9
    assert mined["maxPriorityFeePerGas"] * 8 >= original["maxPriorityFeePerGas"] * 9
    assert usdt_balance(chain, payer) - before == 2_000_000


def test_a_nonce_gap_under_the_reserved_nonces_is_filled_and_the_next_refund_goes_out(
        chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    assert finished(chain, shop, created(shop, intent["id"], "1")["id"])["status"] == "Success"
    # The chain no longer counts the treasury's transaction (as after a re-organisation): the nonce paygate already
    # used is free again, and nothing of paygate's is waiting to take it.
    rpc(chain, "anvil_setNonce", shop.treasury, hex(0))
    payer = chain.accounts[PAYER].address
    before = usdt_balance(chain, payer)
    done = finished(chain, shop, created(shop, intent["id"], "2")["id"])
    assert done["status"] == "Success", done
    assert chain_nonce(chain, shop.treasury) == 2
    assert usdt_balance(chain, payer) - before == 2_000_000


def test_a_refund_the_treasury_can_no_longer_pay_is_cancelled_on_its_nonce_then_fails(
        chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop, "ETH-ETH-TEST")
    fund_treasury(chain, shop, wei=10**17)
    payer = chain.accounts[PAYER].address
    before = chain.w3.eth.get_balance(payer)
    with manual_mining(chain):
        rf = created(shop, intent["id"], "0.002")
        rpc(chain, "anvil_dropTransaction", wait_sent(chain, shop, rf["id"])[0]["tx_hash"])
        # Less than the refund, enough for the gas of a cancel: the refund can never be sent as signed.
        rpc(chain, "anvil_setBalance", shop.treasury, hex(10**15))
    done = finished(chain, shop, rf["id"])
    assert (done["status"], done["failure_reason"]) == ("Failed", "insufficient_funds"), done
    assert chain_nonce(chain, shop.treasury) == 1  # its nonce went to our cancel: nothing of it can be mined now
    assert chain.w3.eth.get_balance(payer) == before
