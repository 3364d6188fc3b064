"""Payment intents over HTTP: create, list, retrieve, choose crypto, cancel, expiry, payment links, events."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.http.builders import payment_link, variant_product
from tests.e2e.payment_intents.support import (
    TEST_ETH,
    TEST_USDC,
    TEST_USDT,
    choose,
    create,
    crypto,
    events_of,
    run_expiry_job,
)
from tests.harness import Service

ADDRESS = re.compile(r"^0x[0-9a-f]{40}$")


def test_create_returns_the_intent_as_the_spec_shows_it(api: httpx.Client, service: Service) -> None:
    before = int(time.time())
    pi = create(api, description="Order 7", metadata={"cart": 3}, merchant_order_id="order-7",
                receipt_email="ann@example.com", return_url="https://shop.test/done",
                shipping_address={"line1": "1 Main St", "city": "Springfield", "country": "US"})
    assert re.fullmatch(r"pi_[0-9A-Za-z]{24}", pi["id"])
    assert re.fullmatch(rf"{pi['id']}_secret_[0-9A-Za-z]{{24}}", pi["client_secret"])
    assert pi["object"] == "payment_intent" and pi["status"] == "RequiresPaymentMethod"
    assert pi["payment_intent_status"] == "Created"
    assert pi["amount"] == {"asset_id": "USD", "amount": "10.50"} and pi["currency"] == "USD"
    assert pi["canceled_at"] == 0 and pi["cancellation_reason"] == ""
    assert before + 24 * 3600 <= pi["expired_at"] <= int(time.time()) + 24 * 3600
    assert pi["payment_link_details"] is None and pi["charges"] == [] and pi["unfreeze_withdraws"] == []
    assert pi["customer"] is None and pi["livemode"] is False and pi["metadata"] == {"cart": 3}
    assert pi["merchant_order_id"] == "order-7" and pi["receipt_email"] == "ann@example.com"
    assert pi["shipping_address"]["city"] == "Springfield"
    assert pi["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "0"}
    assert pi["payment_details"]["gas_fee"] == {}
    [(kind, created)] = events_of(service, pi["id"])
    assert kind == "payment_intent.created" and created["previous_attributes"] is None
    assert created["object"]["id"] == pi["id"] and created["object"]["merchant_order_id"] == "order-7"
    # The client secret is derived, not stored: every read shows the same one.
    assert ok(api.get(f"/v1/payment_intents/{pi['id']}"))["client_secret"] == pi["client_secret"]


@pytest.mark.parametrize(("body", "status", "code", "field"), [
    ({"currency": "USD"}, 400, "parameter_missing", "amount"),
    ({"amount": "5"}, 400, "parameter_missing", "currency"),
    ({"amount": "abc", "currency": "USD"}, 400, "parameter_invalid", "amount"),
    ({"amount": "0", "currency": "USD"}, 400, "parameter_invalid", "amount"),
    ({"amount": "1.001", "currency": "USD"}, 400, "parameter_invalid", "amount"),
    ({"amount": "5", "currency": "XYZ"}, 400, "parameter_invalid", "currency"),
    ({"amount": "5", "currency": "USD", "expires_in": 0}, 400, "parameter_invalid", "expires_in"),
    ({"amount": "5", "currency": "USD", "expires_in": 30 * 86400 + 1}, 400, "parameter_invalid", "expires_in"),
    ({"amount": "5", "currency": "USD", "customer": "cus_nope"}, 400, "parameter_invalid", "customer"),
    ({"amount": "5", "currency": "USD", "payment_link_id": "pl_nope"}, 400, "parameter_invalid", "payment_link_id"),
    ({"amount": "5", "currency": "USD", "permanent_deposit": True}, 400, "parameter_invalid", "permanent_deposit"),
    ({"amount": "5", "currency": "USD", "payment_method_type": "cash"}, 400, "parameter_invalid",
     "payment_method_type"),
])
def test_create_refusals(api: httpx.Client, body: dict[str, Any], status: int, code: str, field: str) -> None:
    fails(api.post("/v1/payment_intents", json=body), status, code, field)


def test_expires_in_bounds_are_accepted(api: httpx.Client) -> None:
    # Exactly `expires_in` after creation (both whole seconds of one clock reading), not "about now".
    shortest = create(api, expires_in=1)
    assert shortest["expired_at"] == shortest["created"] + 1
    longest = create(api, expires_in=30 * 86400)
    assert longest["expired_at"] == longest["created"] + 30 * 86400


def test_list_filters_and_pages(api: httpx.Client, other_api: httpx.Client) -> None:
    ann = ok(api.post("/v1/customers", json={"email": "ann@example.com"}))
    bob = ok(api.post("/v1/customers", json={"email": "bob@example.com"}))
    a1 = create(api, customer=ann["id"], merchant_order_id="A-1")
    a2 = create(api, customer=ann["id"])
    b1 = create(api, customer=bob["id"], merchant_order_id="B-1")
    create(other_api)
    everything = ok(api.get("/v1/payment_intents"))  # page 0 and page_size 10 when absent (DESIGN §12)
    assert (everything["total"], everything["page"], everything["page_size"]) == (3, 0, 10)
    assert [p["id"] for p in everything["payment_intents"]] == [b1["id"], a2["id"], a1["id"]]  # newest first
    assert everything["payment_intents"][0]["customer"]["email"] == "bob@example.com"
    by_email = ok(api.get("/v1/payment_intents", params={"customer_email": "ann@example.com"}))
    assert {p["id"] for p in by_email["payment_intents"]} == {a1["id"], a2["id"]}
    # customer beats customer_email
    both = ok(api.get("/v1/payment_intents", params={"customer": bob["id"], "customer_email": "ann@example.com"}))
    assert [p["id"] for p in both["payment_intents"]] == [b1["id"]]
    by_order = ok(api.get("/v1/payment_intents", params={"merchant_order_id": "A-1"}))
    assert [p["id"] for p in by_order["payment_intents"]] == [a1["id"]] and by_order["total"] == 1
    second = ok(api.get("/v1/payment_intents", params={"page": 1, "page_size": 2}))
    assert [p["id"] for p in second["payment_intents"]] == [a1["id"]] and second["total"] == 3
    fails(api.get("/v1/payment_intents", params={"page_size": 0}), 400, "parameter_invalid", "page_size")
    fails(api.get("/v1/payment_intents", params={"page": -1}), 400, "parameter_invalid", "page")


def test_retrieve_with_expand_and_scoping(api: httpx.Client, other_api: httpx.Client,
                                          live_api: httpx.Client) -> None:
    pi = create(api)
    got = ok(api.get(f"/v1/payment_intents/{pi['id']}", params={"expand": "invoice,subscription"}))
    assert got["id"] == pi["id"] and got["invoice"] == "" and got["subscription"] == ""
    fails(api.get(f"/v1/payment_intents/{pi['id']}", params={"expand": "charges"}), 400, "parameter_invalid",
          "expand")
    fails(other_api.get(f"/v1/payment_intents/{pi['id']}"), 404, "payment_intent_not_found")
    fails(live_api.get(f"/v1/payment_intents/{pi['id']}"), 404, "payment_intent_not_found")
    fails(api.get("/v1/payment_intents/pi_unknown"), 404, "payment_intent_not_found")


def test_choosing_crypto_opens_an_attempt_with_a_fresh_address(api: httpx.Client) -> None:
    pi = create(api)
    updated = choose(api, pi["id"], TEST_ETH)
    assert updated["payment_method_type"] == "crypto" and updated["status"] == "RequiresPaymentMethod"
    assert updated["payment_intent_status"] == "AwaitingPayment"
    options = updated["payment_method_options"]["crypto"]
    assert ADDRESS.match(options["deposit_address"]) and len(options["deposit_address"]) == 42
    # 10.50 USD at 3000 USD per ETH, rounded up to 18 decimals
    assert options["amount"] == "0.0035" and options["exchange_rate"] == "3000"
    assert options["decimals"] == 18 and options["token"] == "ETH" and options["network"] == "ETH-TEST"
    now = int(time.time())
    assert now + 29 * 60 <= options["expired_at"] <= now + 31 * 60
    [charge] = updated["charges"]
    assert charge["status"] == "Pending" and charge["transactions"] == [] and charge["refunds"] == []
    assert charge["payment_method_options"]["crypto"] == options and charge["amount"]["amount"] == "0.0035"
    # The same asset while the quote stands: the same attempt, not a new address.
    assert choose(api, pi["id"], TEST_ETH)["charges"] == updated["charges"]
    # Another asset: a new attempt with its own address; the old one stays listed.
    again = choose(api, pi["id"], TEST_USDT)
    assert len(again["charges"]) == 2
    usdt = again["payment_method_options"]["crypto"]
    assert usdt["amount"] == "10.5" and usdt["deposit_address"] != options["deposit_address"]
    other = choose(api, create(api)["id"], TEST_USDC)["payment_method_options"]["crypto"]
    assert other["deposit_address"] not in (usdt["deposit_address"], options["deposit_address"])
    assert ok(api.get(f"/v1/payment_intents/{pi['id']}"))["charges"] == again["charges"]


def test_quote_rounds_up_to_the_asset_decimals(api: httpx.Client) -> None:
    eth = choose(api, create(api, amount="10")["id"], TEST_ETH)["payment_method_options"]["crypto"]
    assert eth["amount"] == "0.003333333333333334"
    usdt = choose(api, create(api, amount="0.01")["id"], TEST_USDT)["payment_method_options"]["crypto"]
    assert usdt["amount"] == "0.01"


@pytest.mark.parametrize("asset_id", ["ETH-ETH", "USDT-ETH", "USD", "DOGE-ETH-TEST"])
def test_only_payable_assets_of_the_key_mode_can_be_chosen(api: httpx.Client, asset_id: str) -> None:
    pi = create(api)
    fails(api.post(f"/v1/payment_intents/{pi['id']}", json=crypto(asset_id)), 400, "parameter_invalid",
          "payment_method_options.crypto.asset_id")


def test_update_refusals(api: httpx.Client, other_api: httpx.Client) -> None:
    pi = create(api)
    fails(api.post(f"/v1/payment_intents/{pi['id']}", json={"payment_method_type": "crypto"}), 400,
          "parameter_missing", "payment_method_options.crypto.asset_id")
    fails(api.post(f"/v1/payment_intents/{pi['id']}", json={}), 400, "parameter_missing", "payment_method_type")
    fails(api.post(f"/v1/payment_intents/{pi['id']}", json={"payment_method_type": "wire"}), 400,
          "parameter_invalid", "payment_method_type")
    fails(other_api.post(f"/v1/payment_intents/{pi['id']}", json=crypto(TEST_ETH)), 404, "payment_intent_not_found")


def test_permanent_deposit_address_is_reused_per_customer_and_asset(api: httpx.Client) -> None:
    ann = ok(api.post("/v1/customers", json={"email": "ann@example.com"}))
    bob = ok(api.post("/v1/customers", json={"email": "bob@example.com"}))

    def address(customer: str, asset: str) -> str:
        pi = create(api, customer=customer, permanent_deposit=True, permanent_deposit_asset_id=asset)
        assert pi["permanent_deposit"] is True and pi["permanent_deposit_asset_id"] == asset
        return choose(api, pi["id"], asset)["payment_method_options"]["crypto"]["deposit_address"]  # type: ignore

    first = address(ann["id"], TEST_USDT)
    assert address(ann["id"], TEST_USDT) == first
    assert address(ann["id"], TEST_USDC) != first
    assert address(bob["id"], TEST_USDT) != first
    fails(api.post("/v1/payment_intents", json={"amount": "1", "currency": "USD", "customer": ann["id"],
                                                "permanent_deposit": True, "permanent_deposit_asset_id": "USDT-ETH"}),
          400, "parameter_invalid", "permanent_deposit_asset_id")


def test_cancel(api: httpx.Client, other_api: httpx.Client, service: Service) -> None:
    pi = create(api)
    choose(api, pi["id"], TEST_USDT)
    fails(other_api.post(f"/v1/payment_intents/{pi['id']}/cancel", json={}), 404, "payment_intent_not_found")
    answered = ok(api.post(f"/v1/payment_intents/{pi['id']}/cancel", json={"reason": "requested_by_customer"}))
    got = ok(api.get(f"/v1/payment_intents/{pi['id']}"))
    assert answered == got  # the canceled intent's fields in `data` (DESIGN §17; the spec showed `data` empty)
    assert got["status"] == "Canceled" and got["cancellation_reason"] == "requested_by_customer"
    assert got["canceled_at"] >= got["created"] and got["payment_intent_status"] == "Canceled"
    assert got["charges"][0]["status"] == "Expired"
    fails(api.post(f"/v1/payment_intents/{pi['id']}/cancel", json={}), 409, "payment_intent_unexpected_state")
    fails(api.post(f"/v1/payment_intents/{pi['id']}", json=crypto(TEST_USDT)), 409,
          "payment_intent_unexpected_state")
    types = [t for t, _ in events_of(service, pi["id"])]
    assert types == ["payment_intent.created", "payment_intent.canceled"]
    canceled = events_of(service, pi["id"])[1][1]
    assert canceled["object"]["status"] == "Canceled"
    assert canceled["previous_attributes"]["status"] == "RequiresPaymentMethod"
    plain = create(api)
    assert ok(api.post(f"/v1/payment_intents/{plain['id']}/cancel", json={}))["cancellation_reason"] == ""
    assert ok(api.get(f"/v1/payment_intents/{plain['id']}"))["cancellation_reason"] == ""


def test_expiry_cancels_an_unpaid_intent(api: httpx.Client, service: Service) -> None:
    pi = create(api, expires_in=1)
    time.sleep(1.1 - time.time() % 1 + 1)  # past expired_at, whole seconds
    run_expiry_job(service)  # the scheduler may have done it already; either way it is done once
    got = ok(api.get(f"/v1/payment_intents/{pi['id']}"))
    assert got["status"] == "Canceled" and got["cancellation_reason"] == "expired"
    assert got["canceled_at"] >= pi["expired_at"] and got["payment_intent_status"] == "Expired"
    assert [t for t, _ in events_of(service, pi["id"])] == ["payment_intent.created", "payment_intent.canceled"]
    fails(api.post(f"/v1/payment_intents/{pi['id']}", json=crypto(TEST_USDT)), 409,
          "payment_intent_unexpected_state")
    run_expiry_job(service)  # a second run does not expire it twice
    assert len(events_of(service, pi["id"])) == 2


def test_payment_link_purchase_is_priced_from_the_link(api: httpx.Client, merchant: dict[str, Any]) -> None:
    product = variant_product(api, prices=("10.00", "12.50"))
    variants = [v["id"] for v in product["variants"]]
    link = payment_link(api, product)
    body = {"payment_link_id": link["id"], "primary_variant": {"variant_id": variants[1], "quantity": 2},
            "product_version": product["version"], "customer": None, "merchant_order_id": "L-1"}
    pi = ok(api.post("/v1/payment_intents/link", json=body))["payment_intent"]  # the SDK's shape (DESIGN §12)
    assert pi["amount"] == {"asset_id": "USD", "amount": "25.00"}
    details = pi["payment_link_details"]
    assert details["merchant_id"] == merchant["merchant_id"] and details["merchant_name"] == "Test merchant"
    assert details["payment_link"]["id"] == link["id"]
    assert details["payment_link"]["product"]["id"] == product["id"]
    assert details["payment_link"]["total_price"] == {"amount": "25.00", "currency": "USD"}
    [item] = details["payment_link"]["product_items"]
    assert item["variant_id"] == variants[1] and item["quantity"] == 2 and item["is_primary"] is True
    assert item["price"] == {"amount": "12.50", "currency": "USD"} and item["variant_title"] == "S"
    default = ok(api.post("/v1/payment_intents", json={"payment_link_id": link["id"]}))
    assert default["amount"]["amount"] == "10.00"
    fails(api.post("/v1/payment_intents", json={**body, "product_version": 99}), 400, "parameter_invalid",
          "product_version")
    fails(api.post("/v1/payment_intents", json={**body, "primary_variant": {"variant_id": "var_x"}}), 400,
          "parameter_invalid", "primary_variant.variant_id")
    fails(api.post("/v1/payment_intents", json={**body, "amount": "1"}), 400, "parameter_invalid", "amount")


def test_treasury_address_of_the_merchant(api: httpx.Client, merchant: dict[str, Any]) -> None:
    # The harness configures one wallet mnemonic for the CLI and the server, as a deployment would.
    me = ok(api.get("/v1/merchants/me"))
    for mode in ("test", "live"):
        assert ADDRESS.match(merchant[mode]["treasury_address"].lower())
        assert me[mode]["treasury_address"] == merchant[mode]["treasury_address"]
    assert merchant["test"]["treasury_address"] != merchant["live"]["treasury_address"]
