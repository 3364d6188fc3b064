"""A paygate killed (SIGKILL) while an LTC refund is in flight sends that very transaction after restart, never a
second one (issue 34). The state a kill between commit and broadcast leaves is also walked through the rail itself
in tests/e2e/utxo_rail/test_payouts.py (stored, never sent: the next pass sends it once)."""

from __future__ import annotations

import signal
import time
from decimal import Decimal

import httpx

from tests.conftest import ok
from tests.e2e.paid_on_utxo.test_refunds_in_ltc import received, refund_of_a_paid_intent, wait_refund
from tests.harness import Service, launch
from tests.litecoin import Litecoin

WAIT_SECONDS = 60


def test_an_ltc_refund_killed_in_flight_completes_with_its_one_transaction_after_restart(
        litecoin: Litecoin, paygate: Service, shop: httpx.Client) -> None:
    rf, to = refund_of_a_paid_intent(litecoin, paygate, shop, "0.05")
    deadline = time.monotonic() + WAIT_SECONDS
    while not (signed := ok(shop.get(f"/v1/refunds/{rf['id']}"))["transactions"]):
        assert time.monotonic() < deadline, "the refund was never signed"
        time.sleep(0.2)
    assert paygate.process is not None
    paygate.process.send_signal(signal.SIGKILL)  # no shutdown: whatever was in flight is lost
    paygate.process.wait(timeout=10)
    litecoin.mine(1)
    launch(paygate)
    done = wait_refund(litecoin, shop, rf["id"], lambda r: r["status"] in ("Success", "Failed"))
    assert done["status"] == "Success" and len(done["transactions"]) == 1
    assert done["transactions"][0]["tx_hash"] == signed[0]["tx_hash"]  # the very bytes signed before the kill
    fee = Decimal(str(done["network_fee"]["amount"]))
    assert received(litecoin, to) == Decimal("0.05") - fee  # paid once
