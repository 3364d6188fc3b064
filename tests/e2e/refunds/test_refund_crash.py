"""A paygate killed while a refund is in flight sends the very same transaction after restart, never a second one."""

from __future__ import annotations

import signal
import time

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import (
    PAYER,
    assert_mined_once,
    chain_nonce,
    created,
    fund_treasury,
    paid_intent,
    sent_from,
    usdt_balance,
    wait_refund,
)
from tests.harness import Service, launch


def _kill(paygate: Service) -> None:
    assert paygate.process is not None
    paygate.process.send_signal(signal.SIGKILL)  # no shutdown: whatever was in flight is lost
    paygate.process.wait(timeout=10)


def test_a_refund_killed_after_broadcast_completes_once_after_restart(chain: Chain, paygate: Service,
                                                                       shop: Shop) -> None:
    first_block, start_nonce = chain.w3.eth.block_number + 1, chain_nonce(chain, shop.treasury)
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    before = usdt_balance(chain, chain.accounts[PAYER].address)
    rf = created(shop, intent["id"], "3")
    wait_refund(chain, shop, rf["id"], lambda r: r["status"] == "Processing" and r["transactions"])
    _kill(paygate)
    chain.mine(3)
    launch(paygate)
    done = wait_refund(chain, shop, rf["id"], lambda r: r["status"] in ("Success", "Failed"))
    assert done["status"] == "Success" and len(done["transactions"]) == 1
    # The refund's one transaction was mined once; the sweep's gas top-up shares the treasury's nonces, none doubled.
    assert_mined_once(chain, shop.treasury, first_block, start_nonce, [done["transactions"][0]["tx_hash"]])
    assert usdt_balance(chain, chain.accounts[PAYER].address) - before == 3_000_000


def test_a_refund_recorded_but_never_broadcast_is_sent_once_after_restart(chain: Chain, paygate: Service,
                                                                          shop: Shop) -> None:
    first_block, start_nonce = chain.w3.eth.block_number + 1, chain_nonce(chain, shop.treasury)
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    before = usdt_balance(chain, chain.accounts[PAYER].address)
    chain.w3.provider.make_request("evm_setAutomine", [False])  # type: ignore[arg-type]
    try:
        rf = created(shop, intent["id"], "2")
        deadline = time.monotonic() + 60
        while not (signed := ok(shop.api.get(f"/v1/refunds/{rf['id']}"))["transactions"]):
            assert time.monotonic() < deadline
            time.sleep(0.3)
        _kill(paygate)
        # As if the process died between recording the signed transaction and broadcasting it.
        chain.w3.provider.make_request("anvil_dropAllTransactions", [])  # type: ignore[arg-type]
    finally:
        chain.w3.provider.make_request("evm_setAutomine", [True])  # type: ignore[arg-type]
    assert signed[0]["tx_hash"] not in [tx["hash"].to_0x_hex() for tx in sent_from(chain, shop.treasury, first_block)]
    launch(paygate)
    done = wait_refund(chain, shop, rf["id"], lambda r: r["status"] in ("Success", "Failed"))
    assert done["status"] == "Success" and len(done["transactions"]) == 1
    assert done["transactions"][0]["tx_hash"] == signed[0]["tx_hash"]  # the very bytes signed before the crash
    assert_mined_once(chain, shop.treasury, first_block, start_nonce, [signed[0]["tx_hash"]])
    assert usdt_balance(chain, chain.accounts[PAYER].address) - before == 2_000_000
