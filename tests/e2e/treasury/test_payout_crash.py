"""A paygate killed between signing a payout and broadcasting it sends that very transaction after restart, once."""

from __future__ import annotations

import time
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.support import paid_intent, rpc, usdt_balance
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import verified_address, wait_payout
from tests.e2e.treasury.test_sweep_crash import _kill, _nonce
from tests.e2e.treasury.test_sweeps import wait_sweeps
from tests.harness import Service, launch

USDT = "USDT-ETH-TEST"


def _signed(shop: Merchant, payout_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        seen: dict[str, Any] = ok(shop.api.get(f"/v1/payouts/{payout_id}"))
        if seen["transactions"]:
            return seen
        assert time.monotonic() < deadline, seen
        time.sleep(0.3)


def test_a_payout_recorded_but_never_broadcast_is_sent_once_after_restart(chain: Chain, paygate: Service,
                                                                         shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "10.50")
    to = verified_address(chain, shop)
    wait_sweeps(chain, shop, 1)  # the tokens are in the treasury
    nonce_before = _nonce(chain, shop.treasury)
    rpc(chain, "evm_setAutomine", False)  # the payout's transaction waits in the pool
    try:
        made = ok(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "4",
                                                      "receive_account_id": to["id"]}))
        signed = _signed(shop, made["id"])
        _kill(paygate)
        # As if the process died between recording the signed transaction and broadcasting it.
        rpc(chain, "anvil_dropAllTransactions")
    finally:
        rpc(chain, "evm_setAutomine", True)
    assert _nonce(chain, shop.treasury) == nonce_before and usdt_balance(chain, to["address"]) == 0
    launch(paygate)
    done = wait_payout(chain, shop, made["id"], ("paid", "failed"))
    assert done["status"] == "paid" and len(done["transactions"]) == 1
    assert done["transactions"][0]["tx_hash"] == signed["transactions"][0]["tx_hash"]  # the very same bytes
    assert _nonce(chain, shop.treasury) == nonce_before + 1  # one transaction left the treasury for it
    assert usdt_balance(chain, to["address"]) == 4_000_000
