"""The four-eyes threshold (`paygate merchants set-approval --threshold`, server/treasury/approvals/trail.py) through
/v1 on both databases: an amount of the merchant's settlement currency (USD here), against what the merchant sends
out unapproved within a day, each payout valued at current rates (ETH at 3000 USD, USDT at 1). Sweeps are off, so
the payouts that need no approval stay unsent (the treasury holds no tokens) and nothing moves under the test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.support import paid_intent
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import verified_address
from tests.e2e.treasury.test_payout_approval import approver, require
from tests.harness import Service

EXTRA_ENV = {"PAYGATE_SWEEPS": "false"}
ETH, USDT = "ETH-ETH-TEST", "USDT-ETH-TEST"
pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def approvers(paygate: Service, shop: Merchant) -> Iterator[list[httpx.Client]]:
    clients = [approver(paygate, shop) for _ in range(2)]
    yield clients
    for c in clients:
        c.close()


def payout(shop: Merchant, asset_id: str, amount: str, to: dict[str, Any]) -> dict[str, Any]:
    made: dict[str, Any] = ok(shop.api.post("/v1/payouts", json={
        "source_coin": asset_id, "source_amount": amount, "receive_account_id": to["id"]}))
    return made


def test_one_threshold_is_the_same_money_in_every_asset(chain: Chain, paygate: Service, shop: Merchant,
                                                        approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 2, threshold="1")  # 1 USD
    paid_intent(chain, shop, ETH, "3000")  # 0.99 ETH available
    paid_intent(chain, shop, USDT, "4")  # 3.96 USDT available
    to = verified_address(chain, shop)
    assert payout(shop, ETH, "0.9", to)["approval_status"] == "pending"  # 2700 USD
    assert payout(shop, USDT, "2", to)["approval_status"] == "pending"  # 2 USD
    assert payout(shop, USDT, "0.5", to)["approval_status"] == "not_required"  # 0.50 USD
    assert payout(shop, ETH, "0.0001", to)["approval_status"] == "not_required"  # 0.30 USD, 0.80 USD in the day


def test_payouts_split_below_the_threshold_need_approval_for_their_sum(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 2, threshold="5")
    paid_intent(chain, shop, USDT, "10.50")  # 10.395 USDT available
    to = verified_address(chain, shop)
    first, second = payout(shop, USDT, "5", to), payout(shop, USDT, "5", to)
    assert (first["approval_status"], first["status"]) == ("not_required", "approved")
    assert (second["approval_status"], second["status"]) == ("pending", "pending")  # 10 USD in the day


def test_a_canceled_payout_does_not_count_toward_the_days_sum(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 2, threshold="5")
    paid_intent(chain, shop, USDT, "10.50")
    to = verified_address(chain, shop)
    first = payout(shop, USDT, "4", to)
    assert first["approval_status"] == "not_required"
    ok(shop.api.post(f"/v1/payouts/{first['id']}/cancel", json={}))
    assert payout(shop, USDT, "4", to)["approval_status"] == "not_required"  # 4 USD out in the day, not 8
