"""Payouts on Anvil through /v1 (DESIGN §15): to verified addresses only, never above the available balance (even
20 at once), sent by the scheduler, arriving with the amount the preview promised."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.refunds.support import events_of, paid_intent, usdt_balance
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.payout_support import available, verified_address, wait_payout
from tests.e2e.treasury.test_addresses import create, fresh_address
from tests.harness import TLS

USDT = "USDT-ETH-TEST"


def test_a_payout_arrives_with_the_amount_the_preview_promised(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "10.50")  # available 10.395 once approved
    to = verified_address(chain, shop)
    body = {"source_coin": USDT, "source_amount": "5", "receive_asset_id": USDT, "receive_account_id": to["id"],
            "external_id": "po-1", "metadata": {"batch": 7}}
    preview = ok(shop.api.post("/v1/payouts/preview", json=body))
    assert preview["payment_net_amount"] == "5" and preview["available_balance"] == "10.395"
    assert preview["payment_network_fee_asset_id"] == "ETH-ETH-TEST" and Decimal(preview["payment_network_fee"]) > 0
    made = ok(shop.api.post("/v1/payouts", json=body))
    assert made["id"].startswith("payout_") and made["status"] == "approved"
    assert made["approval_status"] == "not_required" and made["metadata"] == {"batch": 7}
    assert available(shop, USDT) == "5.395"  # locked at once
    done = wait_payout(chain, shop, made["id"], ("paid", "failed"))
    assert done["status"] == "paid" and len(done["transactions"]) == 1
    assert usdt_balance(chain, to["address"]) == 5_000_000  # exactly what the preview promised
    assert done["payment_net_amount"] == preview["payment_net_amount"]
    balance = {d["currency"]: d for d in ok(shop.api.get("/v1/stats/balance"))["balance_details"]}
    assert balance[USDT]["available_balance"] == "5.395" and balance[USDT]["locked_balance"] == "0"
    types = [e["type"] for e in events_of(shop, made["id"])]
    assert types[0] == "payout.created" and "payout.succeeded" in types
    listed = ok(shop.api.get("/v1/payouts"))
    assert [p["id"] for p in listed["payouts"]] == [made["id"]] and listed["total"] == 1


def test_a_payout_may_name_its_coin_with_the_asset_it_arrives_in_as_the_sdk_sends_it(chain: Chain,
                                                                                    shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "3")
    to = verified_address(chain, shop)
    body = {"source_coin": "USDT", "source_amount": "1.5", "receive_asset_id": USDT, "receive_account_id": to["id"]}
    preview = ok(shop.api.post("/v1/payouts/preview", json=body))
    assert preview["source_coin"] == USDT and preview["payment_net_amount"] == preview["receive_amount"] == "1.5"
    made = ok(shop.api.post("/v1/payouts", json=body))
    assert made["source_coin"] == USDT and made["receive_asset_id"] == USDT and made["source_amount"] == "1.5"
    assert made["receive_amount"] == "1.5"
    assert available(shop, USDT) == "1.47"
    done = wait_payout(chain, shop, made["id"], ("paid", "failed"))
    assert done["status"] == "paid" and usdt_balance(chain, to["address"]) == 1_500_000


def test_a_payout_shows_its_wallet_address_as_the_address_api_does(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "3")
    to = verified_address(chain, shop)
    made = ok(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "1", "receive_asset_id": USDT,
                                                  "receive_account_id": to["id"]}))

    seen = ok(shop.api.get(f"/v1/payouts/{made['id']}"))

    assert seen["receive_wallet_address"] == ok(shop.api.get(f"/v1/addresses/{to['id']}"))
    assert (seen["receive_account_type"], seen["receive_coin"], seen["livemode"]) == ("wallet", "USDT", False)
    assert ok(shop.api.get("/v1/payouts"))["payouts"][0]["receive_wallet_address"]["id"] == to["id"]


def test_twenty_concurrent_payouts_of_the_whole_balance_accept_exactly_one(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "3")
    to = verified_address(chain, shop)
    whole = available(shop, USDT)
    assert whole == "2.97"
    body = {"source_coin": USDT, "source_amount": whole, "receive_account_id": to["id"]}
    key = shop.merchant["test"]["secret_key"]

    def one(_: int) -> httpx.Response:
        with httpx.Client(base_url=str(shop.api.base_url), auth=(key, ""), timeout=60, verify=TLS) as client:
            return client.post("/v1/payouts", json=body)

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(one, range(20)))
    assert sorted(a.status_code for a in answers) == [200] + [400] * 19, [a.text for a in answers]
    assert {a.json()["error_code"] for a in answers if a.status_code == 400} == {"insufficient_funds"}
    assert available(shop, USDT) == "0"


def test_only_verified_addresses_of_the_same_asset(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "2")
    unverified = create(shop, fresh_address())
    fails(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "1",
                                              "receive_account_id": unverified["id"]}),
          400, "parameter_invalid", "receive_account_id")
    fails(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "1",
                                              "receive_address": fresh_address()}),
          400, "parameter_invalid", "receive_address")
    fails(shop.api.post("/v1/payouts/preview", json={"source_coin": USDT, "source_amount": "1",
                                                      "receive_asset_id": "ETH-ETH-TEST",
                                                      "receive_account_id": unverified["id"]}),
          400, "parameter_invalid", "receive_asset_id")
    assert ok(shop.api.get("/v1/payouts"))["payouts"] == []


def test_above_the_available_balance_is_refused(chain: Chain, shop: Merchant) -> None:
    paid_intent(chain, shop, USDT, "2")  # 1.98 available
    to = verified_address(chain, shop)
    fails(shop.api.post("/v1/payouts", json={"source_coin": USDT, "source_amount": "1.981",
                                              "receive_account_id": to["id"]}),
          400, "insufficient_funds", "source_amount")
    assert available(shop, USDT) == "1.98"
