"""A paygate killed between signing a sweep and broadcasting it sends that very transaction after restart, once."""

from __future__ import annotations

import signal
import time
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent, wait_for
from tests.e2e.refunds.support import PAYER, rpc
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.test_sweeps import eth, wait_sweeps
from tests.harness import Service, launch


def _kill(paygate: Service) -> None:
    assert paygate.process is not None
    paygate.process.send_signal(signal.SIGKILL)  # no shutdown: whatever was in flight is lost
    paygate.process.wait(timeout=10)


def _nonce(chain: Chain, address: str) -> int:
    return int(chain.w3.eth.get_transaction_count(chain.w3.to_checksum_address(address)))


def _signed_sweep(shop: Merchant) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        found = ok(shop.api.get("/v1/sweeps"))["sweeps"]
        if found and found[0]["transactions"]:
            return found[0]  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, found
        time.sleep(0.3)


def test_a_sweep_recorded_but_never_broadcast_is_sent_once_after_restart(chain: Chain, paygate: Service,
                                                                        shop: Merchant) -> None:
    intent_id, quote = open_intent(shop.api, "ETH-ETH-TEST", "30")  # 0.01 ETH
    deposit = quote["deposit_address"]
    chain.send_eth(PAYER, deposit, base_units(quote["amount"], quote["decimals"]))
    treasury_before = eth(chain, shop.treasury)
    rpc(chain, "evm_setAutomine", False)  # the sweep's transaction waits in the pool
    try:
        chain.mine(3)
        wait_for(shop.api, intent_id, lambda i: i["status"] == "Success")
        signed = _signed_sweep(shop)
        _kill(paygate)
        # As if the process died between recording the signed transaction and broadcasting it.
        rpc(chain, "anvil_dropAllTransactions")
    finally:
        rpc(chain, "evm_setAutomine", True)
    assert _nonce(chain, deposit) == 0 and eth(chain, deposit) == 10**16
    launch(paygate)
    (done,) = wait_sweeps(chain, shop, 1)
    assert done["status"] == "succeeded" and len(done["transactions"]) == 1
    assert done["transactions"][0]["tx_hash"] == signed["transactions"][0]["tx_hash"]  # the very same bytes
    assert _nonce(chain, deposit) == 1  # one transaction ever left the deposit address
    assert eth(chain, deposit) == 0
    arrived = eth(chain, shop.treasury) - treasury_before
    assert arrived == int(done["transactions"][0]["amount"]) == 10**16 - int(done["transactions"][0]["fee"])
