"""Payrolls (DESIGN §17) through /v1, as the public SDK calls them, on both databases: each item an ordinary payout
under the payouts' balance, approval and crash rules, one approval for the whole payroll."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.support import paid_intent, usdt_balance
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available, verified_address, wait_payout
from tests.e2e.treasury.test_payout_approval import approver
from tests.harness import Service

USDT = "USDT-ETH-TEST"
pytestmark = pytest.mark.timeout(300)


def item(address: str, amount: str, **fields: Any) -> dict[str, Any]:
    return {"external_id": "", "name": "Ann", "email": "ann@example.com", "phone": "", "amount": amount,
            "coin": "USDT", "network": "ETH-TEST", "address": address, "payment_method": "normal", **fields}


def direct(shop: Merchant, items: list[dict[str, Any]], *, auto_approve: bool = False,
           external_id: str = "") -> httpx.Response:
    return shop.api.post("/v1/payrolls/direct",
                         json={"external_id": external_id, "auto_approve": auto_approve, "items": items})


def payout_count(shop: Merchant) -> int:
    return int(ok(shop.api.get("/v1/payouts"))["total"])


def test_a_direct_payroll_of_two_payouts_waits_for_one_approval_and_both_are_paid(
        chain: Chain, paygate: Service, shop: Merchant) -> None:
    with approver(paygate, shop) as approving:  # an approver key in the mode: 1 approval, threshold 0
        paid_intent(chain, shop, USDT, "4")
        one, two = verified_address(chain, shop), verified_address(chain, shop, fund=False)
        made = ok(direct(shop, [item(one["address"], "1"), item(two["address"], "2", name="Bob")], auto_approve=True))
        payroll = made["payroll"]
        assert payroll["id"].startswith("payroll_") and payroll["total_amount"] == "3"
        assert (payroll["status"], payroll["approval_status"]) == ("pending_approval", "pending")
        assert payroll["currency"] == USDT and payroll["total_item_num"] == 2 and payroll["total_service_fee"] == "0"
        assert [i["status"] for i in made["items"]] == ["pending", "pending"]
        assert available(shop, USDT) == "0.96"  # both locked at once
        instance = "apr_" + payroll["id"].split("_", 1)[1]
        decided = ok(approving.post(f"/v1/approval/{instance}/approve", json={"comment": "march salaries"}))
        assert decided["resource_type"] == "payroll" and decided["approval_status"] == "approved"
        for each in made["items"]:
            done = wait_payout(chain, shop, each["payout_id"], ("paid", "failed"))
            assert done["status"] == "paid"
        assert usdt_balance(chain, one["address"]) == 1_000_000 and usdt_balance(chain, two["address"]) == 2_000_000
        seen = ok(shop.api.get(f"/v1/payrolls/{payroll['id']}"))
        assert (seen["payroll"]["status"], seen["payroll"]["approval_status"]) == ("completed", "approved")
        assert all(i["tx_id"] and i["transactions"] for i in seen["items"])


def test_an_item_payout_of_a_payroll_is_not_approved_on_its_own(chain: Chain, paygate: Service,
                                                                 shop: Merchant) -> None:
    with approver(paygate, shop) as approving:
        paid_intent(chain, shop, USDT, "4")
        to = verified_address(chain, shop)
        made = ok(direct(shop, [item(to["address"], "1"), item(to["address"], "1")], auto_approve=True))
        fails(approving.post(f"/v1/approval/{made['items'][0]['payout_id']}/approve", json={}), 409,
              "payout_in_payroll")
        listed = ok(approving.get("/v1/approval/pending"))
        assert [d["resource_id"] for d in listed["details"]] == [made["payroll"]["id"]], listed
        rejected = ok(approving.post(f"/v1/approval/{made['payroll']['id']}/reject", json={}))
        assert rejected["approval_status"] == "rejected"
        assert ok(shop.api.get(f"/v1/payrolls/{made['payroll']['id']}"))["payroll"]["status"] == "rejected"
        assert available(shop, USDT) == "3.96"  # both released


def test_a_payroll_above_the_available_balance_is_refused_whole(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "4")
    to = verified_address(chain, shop)
    fails(direct(shop, [item(to["address"], "2"), item(to["address"], "2")], auto_approve=True), 400,
          "insufficient_funds", "items")
    assert available(shop, USDT) == "3.96"
    assert payout_count(shop) == 0
    assert ok(shop.api.get("/v1/payrolls"))["total"] == 0


def test_two_payrolls_confirmed_at_once_against_one_balance_exactly_one_succeeds(chain: Chain,
                                                                                shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "4")
    to = verified_address(chain, shop)
    ids = [ok(direct(shop, [item(to["address"], "1.5"), item(to["address"], "1.5")]))["payroll"]["id"]
           for _ in range(2)]
    answers: list[httpx.Response] = []
    start = threading.Barrier(2)

    def confirm(payroll_id: str) -> None:
        start.wait()
        answers.append(shop.api.post(f"/v1/payrolls/{payroll_id}/confirm", json={}))

    threads = [threading.Thread(target=confirm, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.status_code for a in answers) == [200, 400], [a.json() for a in answers]
    fails(next(a for a in answers if a.status_code == 400), 400, "insufficient_funds")
    assert available(shop, USDT) == "0.96"
    assert payout_count(shop) == 2
    statuses = sorted(ok(shop.api.get(f"/v1/payrolls/{i}"))["payroll"]["status"] for i in ids)
    assert statuses[0] == "created" and statuses[1] != "created"


def test_a_payroll_created_without_auto_approve_holds_nothing_until_confirmed(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "4")
    to = verified_address(chain, shop)
    made = ok(direct(shop, [item(to["address"], "1", external_id="emp-1")], external_id="run-1"))
    assert (made["payroll"]["status"], made["payroll"]["approval_status"]) == ("created", "not_submitted")
    assert made["items"][0]["status"] == "created" and made["items"][0]["payout_id"] == ""
    assert available(shop, USDT) == "3.96" and payout_count(shop) == 0
    confirmed = ok(shop.api.post(f"/v1/payrolls/{made['payroll']['id']}/confirm", json={}))
    assert confirmed["payroll"]["approval_status"] == "not_required"
    assert confirmed["payroll"]["status"] == "processing"
    assert available(shop, USDT) == "2.96"
    payout = ok(shop.api.get(f"/v1/payouts/{confirmed['items'][0]['payout_id']}"))
    assert payout["external_id"] == "emp-1" and payout["source_amount"] == "1"
    wait_payout(chain, shop, payout["id"], ("paid",))
    assert ok(shop.api.get(f"/v1/payrolls/{made['payroll']['id']}"))["payroll"]["status"] == "completed"


def test_confirming_a_payroll_twice_is_409(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "4")
    to = verified_address(chain, shop)
    made = ok(direct(shop, [item(to["address"], "1")]))
    ok(shop.api.post(f"/v1/payrolls/{made['payroll']['id']}/confirm", json={}))
    fails(shop.api.post(f"/v1/payrolls/{made['payroll']['id']}/confirm", json={}), 409, "payroll_unexpected_state")
    assert payout_count(shop) == 1 and available(shop, USDT) == "2.96"


def test_bad_items_are_refused_naming_the_item_field_and_nothing_is_written(chain: Chain, shop: Merchant) -> None:
    to = verified_address(chain, shop, fund=False)["address"]
    good = item(to, "1")
    unverified = "0x" + "12" * 20
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({**good, "amount": ""}, "parameter_missing", "items[1].amount"),
        ({**good, "coin": ""}, "parameter_missing", "items[1].coin"),
        ({**good, "network": ""}, "parameter_missing", "items[1].network"),
        ({**good, "address": ""}, "parameter_missing", "items[1].address"),
        ({**good, "coin": "DOGE"}, "parameter_invalid", "items[1].coin"),
        ({**good, "coin": "USDC"}, "parameter_invalid", "items[1].coin"),  # another asset than items[0]'s
        ({**good, "network": "NOPE-TEST"}, "parameter_invalid", "items[1].network"),
        ({**good, "address": unverified}, "parameter_invalid", "items[1].address"),
        ({**good, "address": "not-an-address"}, "parameter_invalid", "items[1].address"),
        ({**good, "amount": "0"}, "parameter_invalid", "items[1].amount"),
        ({**good, "amount": "-1"}, "parameter_invalid", "items[1].amount"),
        ({**good, "amount": "\u0661"}, "parameter_invalid", "items[1].amount"),  # ARABIC-INDIC DIGIT ONE
        ({**good, "amount": "1.0000001"}, "parameter_invalid", "items[1].amount"),  # USDT has 6 decimals
        ({**good, "payment_method": "binance"}, "parameter_invalid", "items[1].payment_method"),
    ]
    for bad, code, field in cases:
        fails(direct(shop, [good, bad], auto_approve=True), 400, code, field)
    fails(direct(shop, [good] * 101), 400, "parameter_invalid", "items")
    fails(direct(shop, []), 400, "parameter_missing", "items")
    assert ok(shop.api.get("/v1/payrolls"))["total"] == 0 and payout_count(shop) == 0


def test_the_network_may_be_named_by_its_id_in_any_case(chain: Chain, shop: Merchant) -> None:
    to = verified_address(chain, shop, fund=False)["address"]
    made = ok(direct(shop, [item(to, "1", network="eth-test", coin="usdt")]))
    assert made["items"][0]["asset_id"] == USDT and made["items"][0]["network"] == "ETH-TEST"


def test_another_merchants_payroll_is_not_found(chain: Chain, shop: Merchant, other_shop: httpx.Client) -> None:
    to = verified_address(chain, shop, fund=False)["address"]
    payroll_id = ok(direct(shop, [item(to, "1")]))["payroll"]["id"]
    fails(other_shop.get(f"/v1/payrolls/{payroll_id}"), 404, "payroll_not_found")
    fails(other_shop.post(f"/v1/payrolls/{payroll_id}/confirm", json={}), 404, "payroll_not_found")
    fails(shop.live.get(f"/v1/payrolls/{payroll_id}"), 404, "payroll_not_found")  # the live key: no test payrolls
    fails(other_shop.post(f"/v1/approval/{payroll_id}/approve", json={}), 404, "payroll_not_found")
    fails(other_shop.get("/v1/approval/detail", params={"resource_id": payroll_id}), 404, "payroll_not_found")
    assert ok(other_shop.get("/v1/payrolls"))["total"] == 0
    assert ok(shop.live.get("/v1/payrolls"))["total"] == 0
    assert ok(other_shop.get("/v1/payrolls/items/list", params={"payroll_id": payroll_id}))["total"] == 0


def test_lists_filter_payrolls_and_items_and_count_them(chain: Chain, shop: Merchant) -> None:
    to = verified_address(chain, shop, fund=False)["address"]
    first = ok(direct(shop, [item(to, "1", name="Ann", external_id="a-1"), item(to, "2", name="Bob")],
                      external_id="march"))["payroll"]
    second = ok(direct(shop, [item(to, "3", name="Ann", external_id="a-2")], external_id="april"))["payroll"]
    every = ok(shop.api.get("/v1/payrolls", params={"page": 0, "page_size": 10}))
    assert every["total"] == 2 and [p["id"] for p in every["payrolls"]] == [second["id"], first["id"]]
    march = ok(shop.api.get("/v1/payrolls", params={"page": 0, "page_size": 10, "external_id": "march"}))
    assert march["total"] == 1 and march["payrolls"][0]["id"] == first["id"]
    one = ok(shop.api.get("/v1/payrolls", params={"page": 0, "page_size": 10, "payroll_id": second["id"]}))
    assert [p["id"] for p in one["payrolls"]] == [second["id"]]
    assert ok(shop.api.get("/v1/payrolls", params={"page_size": 10, "status": "created"}))["total"] == 2
    assert ok(shop.api.get("/v1/payrolls", params={"page_size": 10, "status": "completed"}))["total"] == 0
    fails(shop.api.get("/v1/payrolls", params={"status": "done"}), 400, "parameter_invalid", "status")
    paged = ok(shop.api.get("/v1/payrolls", params={"page": 1, "page_size": 1}))
    assert paged["total"] == 2 and [p["id"] for p in paged["payrolls"]] == [first["id"]]

    def items(**params: Any) -> dict[str, Any]:
        return ok(shop.api.get("/v1/payrolls/items/list", params={"page": 0, "page_size": 10, **params}))  # type: ignore[no-any-return]

    everything = items()
    assert everything["total"] == 3
    assert [i["amount"] for i in everything["payroll_items"]] == ["3", "1", "2"]
    assert items(payroll_id=first["id"])["total"] == 2
    assert [i["amount"] for i in items(external_id="march")["payroll_items"]] == ["1", "2"]
    assert [i["amount"] for i in items(item_external_id="a-2")["payroll_items"]] == ["3"]
    assert [i["amount"] for i in items(employee_name="Ann")["payroll_items"]] == ["3", "1"]
    shown = items(employee_name="Bob")["payroll_items"][0]
    assert shown["id"].startswith("payroll_item_") and shown["payroll_id"] == first["id"]
    assert (shown["coin"], shown["asset_id"], shown["service_fee"], shown["address_verified"]) == (
        "USDT", USDT, "0", True)
