"""A verified payout address on Anvil, and payouts through /v1."""

from __future__ import annotations

import time
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.support import fund_treasury
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.test_addresses import create, prove, wallet

WAIT_SECONDS = 90


def verified_address(chain: Chain, shop: Merchant, *, fund: bool = True) -> dict[str, Any]:
    """A payout address verified by its wallet's signature (DESIGN §16); `fund`: ETH for gas sent to the treasury
    by hand first (without, the merchant's available ETH at the treasury pays the gas of what it sends)."""
    if fund:
        fund_treasury(chain, shop, wei=10**17)
    owner = wallet()
    return ok(prove(shop.api, create(shop, owner.address), owner))  # type: ignore[no-any-return]


def available(shop: Merchant, asset_id: str) -> str:
    details = ok(shop.api.get("/v1/stats/balance"))["balance_details"]
    return next((d["available_balance"] for d in details if d["currency"] == asset_id), "0")


def wait_payout(chain: Chain, shop: Merchant, payout_id: str, statuses: tuple[str, ...]) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen: dict[str, Any] = ok(shop.api.get(f"/v1/payouts/{payout_id}"))
        if seen["status"] in statuses:
            return seen
        assert time.monotonic() < deadline, seen
        chain.mine(1)
        time.sleep(0.5)
