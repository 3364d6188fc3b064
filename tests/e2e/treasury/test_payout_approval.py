"""Four-eyes approval of payouts (DESIGN §15): approver keys, a number of approvals per merchant, the approval API
and its audit trail, through /v1 on both databases."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.support import events_of, paid_intent, usdt_balance
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available, verified_address, wait_payout
from tests.harness import TLS, Service
from tests.harness import paygate as cli

USDT = "USDT-ETH-TEST"
# A hang guard, not a speed check: each test pays an intent, verifies an address and waits for a payout to be mined,
# a dozen scheduler rounds that took 70-95 s on this 2-core machine under the suite's four parallel files.
pytestmark = pytest.mark.timeout(300)


def approver(svc: Service, shop: Merchant) -> httpx.Client:
    done = cli(svc.env, svc.workdir, "merchants", "keys", "create", "--merchant", shop.merchant["merchant_id"],
               "--mode", "test", "--role", "approver", "--json")
    assert done.returncode == 0, done.stderr
    key = json.loads(done.stdout)
    assert key["role"] == "approver" and key["secret_key"].startswith("sk_test_") and key["id"].startswith("key_")
    return httpx.Client(base_url=str(shop.api.base_url), auth=(key["secret_key"], ""), timeout=60, verify=TLS)


def require(svc: Service, shop: Merchant, approvals: int, threshold: str = "0") -> None:
    done = cli(svc.env, svc.workdir, "merchants", "set-approval", "--merchant", shop.merchant["merchant_id"],
               "--approvals", str(approvals), "--threshold", threshold)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def approvers(paygate: Service, shop: Merchant) -> Iterator[list[httpx.Client]]:
    clients = [approver(paygate, shop) for _ in range(3)]
    yield clients
    for c in clients:
        c.close()


def waiting_payout(chain: Chain, shop: Merchant, amount: str = "3", paid: str = "4") -> dict[str, Any]:
    paid_intent(chain, shop, USDT, paid)
    to = verified_address(chain, shop)
    made = ok(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": amount,
                                                  "receive_account_id": to["id"]}))
    assert made["status"] == "pending" and made["approval_status"] == "pending"
    return made


def still_pending(chain: Chain, shop: Merchant, payout_id: str, seconds: float = 4) -> dict[str, Any]:
    """Gives the scheduler time to (wrongly) send it; the payout must stay pending."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        chain.mine(1)
        time.sleep(0.5)
    seen: dict[str, Any] = ok(shop.api.get(f"/v1/payouts/{payout_id}"))
    assert seen["status"] == "pending" and seen["transactions"] == [], seen
    return seen


def test_a_payout_needing_two_approvals_is_sent_after_the_second(chain: Chain, paygate: Service, shop: Merchant,
                                                                   approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 2)
    made = waiting_payout(chain, shop)
    assert available(shop, USDT) == "0.96"  # held while it waits
    first = ok(approvers[0].post(f"/v1/approval/{made['id']}/approve", json={"comment": "looks right"}))
    assert first["approval_status"] == "pending" and first["approvals_given"] == 1
    still_pending(chain, shop, made["id"])
    second = ok(approvers[1].post(f"/v1/approval/{made['id']}/approve", json={}))
    assert second["approval_status"] == "approved" and second["approvals_given"] == 2
    done = wait_payout(chain, shop, made["id"], ("paid", "failed"))
    assert done["status"] == "paid" and done["approval_status"] == "approved"
    assert usdt_balance(chain, made["receive_address"]) == 3_000_000
    detail = ok(approvers[2].get("/v1/approval/detail", params={"resource_id": made["id"]}))
    actions = [(a["action"], a["key_id"] != "") for a in detail["actions"]]
    assert actions == [("create", True), ("approve", True), ("approve", True), ("sent", False)], detail
    assert detail["actions"][1]["comment"] == "looks right" and all(a["created"] > 0 for a in detail["actions"])
    assert "payout.succeeded" in [e["type"] for e in events_of(shop, made["id"])]


def test_an_approver_key_alone_makes_a_payout_wait_for_one_approval(chain: Chain, paygate: Service, shop: Merchant,
                                                                    approvers: list[httpx.Client]) -> None:
    made = waiting_payout(chain, shop)  # approvals never set: an approver key in the mode means 1 (DESIGN §16)
    detail = ok(approvers[0].get("/v1/approval/detail", params={"resource_id": made["id"]}))
    assert detail["approvals_required"] == 1
    decided = ok(approvers[0].post(f"/v1/approval/{made['id']}/approve", json={}))
    assert decided["approval_status"] == "approved" and decided["payout"]["status"] == "approved"


def test_approvals_set_to_0_need_none_even_with_an_approver_key(chain: Chain, paygate: Service, shop: Merchant,
                                                               approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 0)
    paid_intent(chain, shop, USDT, "4")
    to = verified_address(chain, shop)
    made = ok(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "1",
                                                  "receive_account_id": to["id"]}))
    assert (made["status"], made["approval_status"]) == ("approved", "not_required")


def test_the_same_approver_twice_counts_once(chain: Chain, paygate: Service, shop: Merchant,
                                             approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 2)
    made = waiting_payout(chain, shop)
    ok(approvers[0].post(f"/v1/approval/{made['id']}/approve", json={}))
    fails(approvers[0].post(f"/v1/approval/{made['id']}/approve", json={}), 409, "approval_already_given")
    still_pending(chain, shop, made["id"], seconds=2)
    detail = ok(approvers[0].get("/v1/approval/detail", params={"resource_id": made["id"]}))
    assert detail["approvals_given"] == 1 and detail["approvals_required"] == 2


def test_one_reject_releases_the_amount_and_it_is_never_sent(chain: Chain, paygate: Service, shop: Merchant,
                                                             approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 2)
    made = waiting_payout(chain, shop)
    ok(approvers[0].post(f"/v1/approval/{made['id']}/approve", json={}))
    rejected = ok(approvers[1].post(f"/v1/approval/{made['id']}/reject", json={"comment": "unknown payee"}))
    assert rejected["approval_status"] == "rejected" and rejected["payout"]["status"] == "rejected"
    assert available(shop, USDT) == "3.96"
    fails(approvers[2].post(f"/v1/approval/{made['id']}/approve", json={}), 409, "payout_not_pending_approval")
    time.sleep(2)
    assert ok(shop.api.get(f"/v1/payouts/{made['id']}"))["transactions"] == []
    types = [e["type"] for e in events_of(shop, made["id"])]
    assert types[0] == "payout.created" and "payout.updated" in types and "payout.succeeded" not in types


def test_keys_stay_in_their_roles(chain: Chain, paygate: Service, shop: Merchant,
                                  approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 1)
    made = waiting_payout(chain, shop)
    fails(shop.api.post(f"/v1/approval/{made['id']}/approve", json={}), 403, "approver_key_required")
    fails(shop.api.post(f"/v1/approval/{made['id']}/reject", json={}), 403, "approver_key_required")
    body = {"source_coin": USDT, "source_amount": "0.5", "receive_account_id": made["receive_account_id"]}
    for answer in (approvers[0].post("/v1/payouts", json=body), approvers[0].get("/v1/payouts"),
                   approvers[0].get(f"/v1/payouts/{made['id']}"), approvers[0].get("/v1/stats/balance"),
                   approvers[0].get("/v1/customers"), approvers[0].post(f"/v1/payouts/{made['id']}/cancel", json={})):
        assert answer.status_code == 403, answer.text
    assert ok(shop.api.get(f"/v1/payouts/{made['id']}"))["status"] == "pending"
    # The merchant's secret key reads the audit trail; only an approver decides.
    assert ok(shop.api.get("/v1/approval/detail", params={"resource_id": made["id"]}))["approvals_given"] == 0


def test_another_merchants_approver_neither_sees_nor_approves(chain: Chain, paygate: Service, shop: Merchant) -> None:
    require(paygate, shop, 1)
    made = waiting_payout(chain, shop)
    other = paygate.create_merchant("Other shop")
    with httpx.Client(base_url=str(shop.api.base_url), auth=(other["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        stranger = approver(paygate, Merchant(api, "", api, other))
        fails(stranger.post(f"/v1/approval/{made['id']}/approve", json={}), 404, "payout_not_found")
        fails(stranger.post(f"/v1/approval/{made['id']}/reject", json={}), 404, "payout_not_found")
        fails(stranger.get("/v1/approval/detail", params={"resource_id": made["id"]}), 404, "payout_not_found")
        assert ok(stranger.get("/v1/approval/pending"))["details"] == []
        stranger.close()
    assert ok(shop.api.get(f"/v1/payouts/{made['id']}"))["approval_status"] == "pending"


def test_concurrent_approvals_send_once(chain: Chain, paygate: Service, shop: Merchant) -> None:
    require(paygate, shop, 2)
    clients = [approver(paygate, shop) for _ in range(6)]
    made = waiting_payout(chain, shop)
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda c: c.post(f"/v1/approval/{made['id']}/approve", json={}), clients))
    codes = sorted(a.status_code for a in answers)
    assert codes.count(200) >= 2 and set(codes) <= {200, 409}, [a.text for a in answers]
    done = wait_payout(chain, shop, made["id"], ("paid", "failed"))
    assert done["status"] == "paid" and len(done["transactions"]) == 1
    assert usdt_balance(chain, made["receive_address"]) == 3_000_000
    detail = ok(clients[0].get("/v1/approval/detail", params={"resource_id": made["id"]}))
    assert detail["approvals_given"] == 2 and [a["action"] for a in detail["actions"]].count("sent") == 1
    for c in clients:
        c.close()


def test_below_the_threshold_no_approval_is_needed_and_waiting_ones_are_listed(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 1, threshold="2")
    paid_intent(chain, shop, USDT, "4")
    to = verified_address(chain, shop)
    small = ok(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "1",
                                                   "receive_account_id": to["id"]}))
    assert small["approval_status"] == "not_required" and small["status"] == "approved"
    big = ok(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "2.5",
                                                 "receive_account_id": to["id"]}))
    assert big["approval_status"] == "pending"
    waiting = ok(approvers[0].get("/v1/approval/pending"))["details"]
    assert [d["resource_id"] for d in waiting] == [big["id"]] and waiting[0]["payout"]["source_amount"] == "2.5"


def test_the_cli_refuses_bad_approval_settings_and_keys(paygate: Service, shop: Merchant) -> None:
    merchant = shop.merchant["merchant_id"]
    for args, says in ((("--merchant", "mch_nobody", "--approvals", "1"), "--merchant"),
                       (("--merchant", merchant, "--approvals", "1", "--threshold", "lots"), "--threshold"),
                       (("--merchant", merchant, "--approvals", "1", "--threshold", "-1"), "--threshold"),
                       (("--merchant", merchant, "--approvals", "-1"), "--approvals"),
                       (("--merchant", merchant, "--mode", "staging", "--approvals", "1"), "--mode")):
        done = cli(paygate.env, paygate.workdir, "merchants", "set-approval", *args)
        assert done.returncode == 2 and says in done.stderr, done.stderr
    done = cli(paygate.env, paygate.workdir, "merchants", "keys", "create", "--merchant", "mch_nobody",
               "--mode", "test", "--role", "approver")
    assert done.returncode == 2 and "--merchant" in done.stderr, done.stderr
    done = cli(paygate.env, paygate.workdir, "merchants", "keys", "create", "--merchant", merchant,
               "--mode", "test", "--role", "admin")
    assert done.returncode == 2, done.stderr


# ------------------------------------------------------------------ the SDK's approval instance (DESIGN §17)


def test_a_payout_is_approved_by_its_approval_instance_id_as_the_sdk_sends_it(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 2)
    made = waiting_payout(chain, shop)
    detail = ok(shop.api.get("/v1/approval/detail", params={"resource_id": made["id"]}))
    instance = detail["id"]
    assert instance.startswith("apr_") and detail["object"] == "approval_instance"
    assert (detail["status"], detail["resource_id"], detail["resource_type"]) == ("pending", made["id"], "payout")
    assert detail["merchant_id"] == shop.merchant["merchant_id"] and detail["created_at"] > 0
    step = detail["current_step"]
    assert (step["step_order"], step["roles"], step["next_on_approve"], step["next_on_reject"]) == (1, ["approver"],
                                                                                                     2, 0)
    assert [r["action"] for r in detail["records"]] == ["start"]
    # The SDK's ApproveApproval posts no body at all.
    first = ok(approvers[0].post(f"/v1/approval/{instance}/approve", json={}))
    assert (first["id"], first["status"], first["current_step"]["step_order"]) == (instance, "pending", 2)
    assert first["current_step"]["next_on_approve"] == 0  # the second approval is the last
    second = ok(approvers[1].post(f"/v1/approval/{instance}/approve", json={"comment": "second pair of eyes"}))
    assert (second["id"], second["status"], second["approval_status"]) == (instance, "approved", "approved")
    assert "current_step" not in second or second["current_step"] is None
    records = second["records"]
    assert [(r["action"], r["approver_role"]) for r in records] == [
        ("start", "merchant"), ("approve", "approver"), ("approve", "approver")]
    assert records[2]["comment"] == "second pair of eyes" and records[1]["approver_id"].startswith("key_")
    assert {r["namespace"] for r in records} == {"merchant"} and second["updated_at"] >= second["created_at"]
    assert wait_payout(chain, shop, made["id"], ("paid", "failed"))["status"] == "paid"


def test_the_approval_detail_answers_by_instance_id_and_a_pending_list_names_the_instances(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 1)
    made = waiting_payout(chain, shop)
    instance = ok(shop.api.get("/v1/approval/detail", params={"resource_id": made["id"]}))["id"]
    by_instance = ok(approvers[0].get("/v1/approval/detail", params={"instance_id": instance}))
    assert (by_instance["id"], by_instance["resource_id"]) == (instance, made["id"])
    as_resource = ok(approvers[0].get("/v1/approval/detail", params={"resource_id": instance,
                                                                     "resource_type": "payout"}))
    assert as_resource["resource_id"] == made["id"]
    fails(approvers[0].get("/v1/approval/detail", params={"instance_id": instance, "resource_type": "refund"}),
          404, "refund_not_found")
    fails(approvers[0].get("/v1/approval/detail", params={"instance_id": instance, "resource_type": "invoice"}),
          400, "parameter_invalid", "resource_type")
    fails(approvers[0].get("/v1/approval/detail", params={"instance_id": made["id"]}),
          400, "parameter_invalid", "instance_id")
    assert [d["id"] for d in ok(approvers[0].get("/v1/approval/pending"))["details"]] == [instance]


def test_an_unknown_or_another_merchants_approval_instance_is_approval_not_found(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 1)
    made = waiting_payout(chain, shop)
    instance = ok(shop.api.get("/v1/approval/detail", params={"resource_id": made["id"]}))["id"]
    unknown = "apr_" + "0" * 24
    fails(approvers[0].post(f"/v1/approval/{unknown}/approve", json={}), 404, "approval_not_found")
    fails(approvers[0].get("/v1/approval/detail", params={"instance_id": unknown}), 404, "approval_not_found")
    other = paygate.create_merchant("Other shop")
    with httpx.Client(base_url=str(shop.api.base_url), auth=(other["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        stranger = approver(paygate, Merchant(api, "", api, other))
        fails(stranger.post(f"/v1/approval/{instance}/approve", json={}), 404, "approval_not_found")
        fails(stranger.post(f"/v1/approval/{instance}/reject", json={}), 404, "approval_not_found")
        fails(stranger.get("/v1/approval/detail", params={"instance_id": instance}), 404, "approval_not_found")
        stranger.close()
    assert ok(shop.api.get(f"/v1/payouts/{made['id']}"))["approval_status"] == "pending"


def test_a_pending_payout_canceled_before_its_approvers_decide_is_a_canceled_instance(
        chain: Chain, paygate: Service, shop: Merchant, approvers: list[httpx.Client]) -> None:
    require(paygate, shop, 1)
    made = waiting_payout(chain, shop)
    ok(shop.api.post(f"/v1/payouts/{made['id']}/cancel", json={}))
    detail = ok(approvers[0].get("/v1/approval/detail", params={"resource_id": made["id"]}))
    assert detail["status"] == "canceled" and ("current_step" not in detail or detail["current_step"] is None)
    assert detail["records"][-1]["action"] == "cancel"
