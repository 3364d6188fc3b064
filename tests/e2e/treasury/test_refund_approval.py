"""Four eyes on refunds (DESIGN §15, server/treasury/approvals/service.py): a refund to an address other than the
payer's is money leaving for an address the caller names, as a payout is, so with payout approvers configured it
waits Pending until they approve it, whatever its amount; a refund back to the payer never waits. Through /v1 on both
databases, with the payments and refunds on Anvil."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.support import created, finished, paid_intent, usdt_balance
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available
from tests.e2e.treasury.test_addresses import fresh_address
from tests.e2e.treasury.test_payout_approval import approver, require
from tests.e2e.treasury.test_payout_approval_threshold import approvers  # noqa: F401  (two approver keys)
from tests.e2e.treasury.test_sweeps import wait_sweeps
from tests.harness import TLS, Service

USDT = "USDT-ETH-TEST"
# A hang guard, not a speed check: a payment, its sweep and a refund take a dozen scheduler passes.
pytestmark = pytest.mark.timeout(300)


def swept_sale(chain: Chain, shop: Merchant) -> dict[str, Any]:
    """10.50 USDT paid, with another sale so all of it is refundable, and swept into the treasury."""
    shop_eth = paid_intent(chain, shop, "ETH-ETH-TEST", "30")  # 0.01 ETH: gas for the token sweeps and refunds
    assert shop_eth["status"] == "Success"
    sale = paid_intent(chain, shop, USDT, "10.50")
    paid_intent(chain, shop, USDT, "1")
    wait_sweeps(chain, shop, 3)
    return sale


def still_waiting(chain: Chain, shop: Merchant, refund_id: str, passes: int = 8) -> dict[str, Any]:
    """Gives the refund sender time to (wrongly) send it; the refund must stay Pending, unsigned."""
    for _ in range(passes):
        chain.mine(1)
        seen: dict[str, Any] = ok(shop.api.get(f"/v1/refunds/{refund_id}"))
        assert (seen["status"], seen["transactions"]) == ("Pending", []), seen
        time.sleep(0.5)
    return seen


def test_a_refund_to_another_address_waits_for_the_approvers_and_goes_once_approved(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:  # noqa: F811
    require(paygate, shop, 2, threshold="1000000")  # a payout threshold never excuses a refund elsewhere
    sale, thief = swept_sale(chain, shop), fresh_address()
    refund = created(shop, sale["id"], "2", refund_address=thief)
    assert (refund["status"], refund["approval_status"]) == ("Pending", "pending"), refund
    still_waiting(chain, shop, refund["id"])
    first = ok(approvers[0].post(f"/v1/approval/{refund['id']}/approve", json={"comment": "customer asked"}))
    assert (first["resource_type"], first["approval_status"], first["approvals_given"]) == ("refund", "pending", 1)
    assert first["refund"]["id"] == refund["id"]
    still_waiting(chain, shop, refund["id"], passes=4)
    second = ok(approvers[1].post(f"/v1/approval/{refund['id']}/approve", json={}))
    assert second["approval_status"] == "approved"
    assert [a["action"] for a in second["actions"]] == ["create", "approve", "approve"]
    assert finished(chain, shop, refund["id"])["status"] == "Success"
    assert usdt_balance(chain, thief) == 2_000_000
    trail = ok(shop.api.get("/v1/approval/detail", params={"resource_id": refund["id"]}))["actions"]
    assert [a["action"] for a in trail] == ["create", "approve", "approve", "sent"]


def test_an_approver_key_alone_makes_a_refund_to_another_address_wait_for_one_approval(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:  # noqa: F811
    sale = swept_sale(chain, shop)  # approvals never set: an approver key in the mode means 1 (DESIGN §16)
    refund = created(shop, sale["id"], "2", refund_address=fresh_address())
    assert (refund["status"], refund["approval_status"]) == ("Pending", "pending"), refund
    detail = ok(shop.api.get("/v1/approval/detail", params={"resource_id": refund["id"]}))
    assert detail["approvals_required"] == 1


def test_a_rejected_refund_fails_and_gives_its_amount_back(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:  # noqa: F811
    require(paygate, shop, 1)
    sale = swept_sale(chain, shop)
    before, thief = Decimal(available(shop, USDT)), fresh_address()
    refund = created(shop, sale["id"], "2", refund_address=thief)
    assert Decimal(available(shop, USDT)) == before - 2  # held while it waits
    rejected = ok(approvers[0].post(f"/v1/approval/{refund['id']}/reject", json={"comment": "not ours"}))
    assert (rejected["approval_status"], rejected["refund"]["status"]) == ("rejected", "Failed")
    seen = ok(shop.api.get(f"/v1/refunds/{refund['id']}"))
    assert (seen["status"], seen["failure_reason"], seen["transactions"]) == ("Failed", "approval_rejected", [])
    assert Decimal(available(shop, USDT)) == before
    fails(approvers[0].post(f"/v1/approval/{refund['id']}/approve", json={}), 409, "refund_not_pending_approval")
    assert usdt_balance(chain, thief) == 0


def test_a_refund_back_to_the_payer_needs_no_approval(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:  # noqa: F811
    require(paygate, shop, 2)
    sale = swept_sale(chain, shop)
    refund = created(shop, sale["id"], "2")  # no refund_address: back where the money came from
    assert refund["approval_status"] == "not_required"
    assert finished(chain, shop, refund["id"])["status"] == "Success"


def test_only_another_approver_key_may_decide_a_waiting_refund(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:  # noqa: F811
    require(paygate, shop, 1)
    sale, thief = swept_sale(chain, shop), fresh_address()
    refund = created(shop, sale["id"], "2", refund_address=thief)
    fails(shop.api.post(f"/v1/approval/{refund['id']}/approve", json={}), 403, "approver_key_required")
    detail = ok(shop.api.get("/v1/approval/detail", params={"resource_id": refund["id"]}))
    assert (detail["resource_type"], detail["approval_status"], detail["approvals_required"]) == \
        ("refund", "pending", 1)
    listed = ok(shop.api.get("/v1/approval/pending"))
    assert refund["id"] in [d["resource_id"] for d in listed["details"]]
    # An approver key cannot make the refund it would approve: it may only use the approval API.
    fails(approvers[0].post("/v1/refunds", json={"payment_intent_id": sale["id"], "amount": "1",
                                                 "refund_address": fresh_address()}), 403, "approver_key_restricted")
    still_waiting(chain, shop, refund["id"], passes=2)


def test_another_merchants_approver_cannot_see_or_decide_a_refund(
        chain: Chain, paygate: Service, shop: Merchant) -> None:
    require(paygate, shop, 1)
    sale, thief = swept_sale(chain, shop), fresh_address()
    refund = created(shop, sale["id"], "2", refund_address=thief)
    stranger = paygate.create_merchant("Stranger")
    with httpx.Client(base_url=paygate.http_url, auth=(stranger["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        foreign = Merchant(api, stranger["test"]["treasury_address"], api, stranger)
        with approver(paygate, foreign) as theirs:
            fails(theirs.post(f"/v1/approval/{refund['id']}/approve", json={}), 404, "refund_not_found")
            fails(theirs.get("/v1/approval/detail", params={"resource_id": refund["id"]}), 404, "refund_not_found")
    still_waiting(chain, shop, refund["id"], passes=2)
