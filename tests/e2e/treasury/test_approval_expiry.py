"""Approvals nobody gives (server/treasury/approvals/expiry.py): a payout or a refund to another address still waiting
for its approvers after `approval_expiry_seconds` is ended by paygate, its amount released, and can no longer be
approved. The module's service waits 4 s and runs the job every half second. Through /v1 on both databases, with the
payments on Anvil."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.support import created
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available
from tests.e2e.treasury.test_addresses import fresh_address
from tests.e2e.treasury.test_payout_approval import USDT, approver, require, waiting_payout
from tests.e2e.treasury.test_refund_approval import swept_sale
from tests.harness import TEST_JOB_SECONDS, Service

EXPIRY_SECONDS = 4
EXTRA_ENV = {"PAYGATE_APPROVAL_EXPIRY_SECONDS": str(EXPIRY_SECONDS),
             "PAYGATE_JOB_SECONDS": json.dumps({**TEST_JOB_SECONDS, "expire_approvals": 0.5})}
# A hang guard, not a speed check: a payment, its sweep and an address verification take a dozen scheduler passes.
pytestmark = pytest.mark.timeout(300)


def read_until(read: Callable[[], dict[str, Any]], done: Callable[[dict[str, Any]], bool],
               seconds: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while not done(seen := read()):
        assert time.monotonic() < deadline, seen
        time.sleep(0.3)
    return seen


def trail(shop: Merchant, resource_id: str) -> list[tuple[str, str]]:
    actions = ok(shop.api.get("/v1/approval/detail", params={"resource_id": resource_id}))["actions"]
    return [(a["action"], a["key_id"]) for a in actions]


def test_a_payout_nobody_approves_in_time_is_canceled_and_its_amount_released(
        chain: Chain, paygate: Service, shop: Merchant) -> None:
    require(paygate, shop, 1)
    made = waiting_payout(chain, shop)
    assert available(shop, USDT) == "0.96"  # 3 of the 3.96 held while it waits

    ended = read_until(lambda: ok(shop.api.get(f"/v1/payouts/{made['id']}")), lambda p: p["status"] != "pending")

    assert (ended["status"], ended["approval_status"], ended["transactions"]) == ("canceled", "expired", [])
    assert available(shop, USDT) == "3.96"
    assert trail(shop, made["id"])[-1] == ("expire", "")
    with approver(paygate, shop) as late:
        fails(late.post(f"/v1/approval/{made['id']}/approve", json={}), 409, "payout_not_pending_approval")


def test_a_refund_to_another_address_nobody_approves_in_time_fails_and_gives_its_amount_back(
        chain: Chain, paygate: Service, shop: Merchant) -> None:
    require(paygate, shop, 1)
    sale = swept_sale(chain, shop)
    before = Decimal(available(shop, USDT))
    refund = created(shop, sale["id"], "2", refund_address=fresh_address())
    assert (refund["status"], refund["approval_status"]) == ("Pending", "pending"), refund

    ended = read_until(lambda: ok(shop.api.get(f"/v1/refunds/{refund['id']}")), lambda r: r["status"] != "Pending")

    assert (ended["status"], ended["failure_reason"], ended["approval_status"]) == (
        "Failed", "approval_expired", "expired")
    assert ended["transactions"] == [] and Decimal(available(shop, USDT)) == before
    assert trail(shop, refund["id"])[-1] == ("expire", "")
    with approver(paygate, shop) as late:
        fails(late.post(f"/v1/approval/{refund['id']}/approve", json={}), 409, "refund_not_pending_approval")
    again = created(shop, sale["id"], "2")  # its amount is refundable again, back to the payer
    assert again["approval_status"] == "not_required"


def test_an_approval_given_in_time_is_not_undone(chain: Chain, paygate: Service, shop: Merchant) -> None:
    require(paygate, shop, 1)
    # The key first: making one is a `paygate` process, seconds on a loaded machine, longer than the 4 s expiry.
    with approver(paygate, shop) as prompt:
        made = waiting_payout(chain, shop)
        decided = ok(prompt.post(f"/v1/approval/{made['id']}/approve", json={}))
    assert decided["approval_status"] == "approved"

    time.sleep(EXPIRY_SECONDS + 2)

    seen = ok(shop.api.get(f"/v1/payouts/{made['id']}"))
    assert seen["approval_status"] == "approved" and seen["status"] != "canceled"
    assert ("expire", "") not in trail(shop, made["id"])
