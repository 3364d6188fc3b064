"""Canceling a payout before it is sent (DESIGN §15). Sweeps are off here, so the treasury never holds the tokens on
chain and the payout waits, approved, until canceled: the test does not race the sender."""

from __future__ import annotations

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.support import events_of, paid_intent
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available, verified_address

EXTRA_ENV = {"PAYGATE_SWEEPS": "false"}
USDT = "USDT-ETH-TEST"


def test_a_canceled_payout_gives_its_amount_back_and_is_never_sent(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "4")  # 3.96 available
    to = verified_address(chain, shop)
    made = ok(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "3",
                                                  "receive_account_id": to["id"]}))
    assert available(shop, USDT) == "0.96"
    canceled = ok(shop.api.post(f"/v1/payouts/{made['id']}/cancel", json={}))
    assert canceled["status"] == "canceled" and canceled["transactions"] == []
    assert available(shop, USDT) == "3.96"
    fails(shop.api.post(f"/v1/payouts/{made['id']}/cancel", json={}), 409, "payout_not_cancelable")
    assert [e["type"] for e in events_of(shop, made["id"])] == ["payout.created", "payout.updated"]
