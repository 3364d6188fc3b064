"""Public checkout answers (public key + client secret) carry what a checkout page needs and nothing the merchant
keeps to itself: no metadata, merchant_order_id, customer contact or address, merchant fees. The same call with the
secret key still answers the whole intent."""

from __future__ import annotations

import json
from typing import Any

import grpc
import httpx
import pytest
from paygate.v1 import payment_intents_pb2 as pb
from paygate.v1 import payment_intents_pb2_grpc

from tests.conftest import ok
from tests.e2e.payment_intents.support import TEST_USDT, crypto

READ = "/payment_intents/link/{id}"
UPDATE = "/payment_intents/link/{id}/update"
SHIPPING = {"line1": "1 Private Road", "line2": "Flat 2", "city": "Springfield", "state": "IL",
            "postal_code": "62701", "country": "US"}


@pytest.fixture
def intent(api: httpx.Client) -> dict[str, Any]:
    customer = ok(api.post("/v1/customers", json={"name": "Jane Doe", "email": "jane@example.com",
                                                 "phone": "+15555550100", "metadata": {"crm": "vip"}}))
    return ok(api.post("/v1/payment_intents", json={  # type: ignore[no-any-return]
        "amount": "10.50", "currency": "USD", "customer": customer["id"], "description": "Order of a mug",
        "metadata": {"internal_note": "call before shipping"}, "merchant_order_id": "order-4711",
        "shipping_address": SHIPPING, "receipt_email": "receipt@example.com",
        "return_url": "https://shop.example.com/done"}))


def public(merchant: dict[str, Any], intent: dict[str, Any]) -> dict[str, Any]:
    return {"key": merchant["test"]["public_key"], "client_secret": intent["client_secret"]}


def assert_public_projection(got: dict[str, Any]) -> None:
    assert got["metadata"] == {}
    assert got["merchant_order_id"] == ""
    assert got["receipt_email"] == ""
    assert got["shipping_address"] is None
    assert got["customer"] is None or set(got["customer"]) <= {"id", "object"} or \
        all(not v for k, v in got["customer"].items() if k not in ("id", "object"))
    text = json.dumps(got)
    for secret in ("jane@example.com", "+15555550100", "Jane Doe", "vip", "call before shipping", "order-4711",
                   "1 Private Road", "Springfield", "62701", "receipt@example.com"):
        assert secret not in text, secret
    for fee in ("tx_fee", "tax_fee", "net_amount", "network_fee"):
        assert got["payment_details"][fee] is None, fee
    for charge in got["charges"]:
        assert charge["customer"] == "" and charge["receipt_email"] == ""


def assert_full_object(got: dict[str, Any]) -> None:
    assert got["metadata"] == {"internal_note": "call before shipping"}
    assert got["merchant_order_id"] == "order-4711"
    assert got["receipt_email"] == "receipt@example.com"
    assert got["shipping_address"]["line1"] == "1 Private Road"
    assert got["customer"]["email"] == "jane@example.com" and got["customer"]["phone"] == "+15555550100"
    assert got["payment_details"]["tx_fee"] is not None


def test_public_checkout_read_hides_merchant_and_customer_data(anonymous: httpx.Client, merchant: dict[str, Any],
                                                               intent: dict[str, Any]) -> None:
    got = ok(anonymous.post(READ.format(id=intent["id"]), json=public(merchant, intent)))
    assert got["id"] == intent["id"] and got["amount"] == intent["amount"]
    assert got["status"] == "RequiresPaymentMethod" and got["client_secret"] == intent["client_secret"]
    assert got["return_url"] == "https://shop.example.com/done" and got["description"] == "Order of a mug"
    assert_public_projection(got)


def test_public_checkout_read_via_request_string_hides_merchant_and_customer_data(
        anonymous: httpx.Client, merchant: dict[str, Any], intent: dict[str, Any]) -> None:
    got = ok(anonymous.post(f"/v1/payment_intents/link/{intent['id']}",
                            json={"request": json.dumps(public(merchant, intent))}))
    assert_public_projection(got)


def test_public_checkout_update_keeps_the_deposit_data_and_hides_the_rest(
        anonymous: httpx.Client, merchant: dict[str, Any], intent: dict[str, Any]) -> None:
    got = ok(anonymous.post(UPDATE.format(id=intent["id"]), json={**public(merchant, intent), **crypto(TEST_USDT)}))
    options = got["charges"][0]["payment_method_options"]["crypto"]
    assert options["deposit_address"].startswith("0x") and options["amount"] == "10.5" and options["expired_at"] > 0
    assert got["payment_method_options"]["crypto"]["deposit_address"] == options["deposit_address"]
    assert_public_projection(got)


def test_checkout_read_with_the_secret_key_still_answers_the_whole_intent(
        api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any], intent: dict[str, Any]) -> None:
    assert_full_object(ok(api.post(READ.format(id=intent["id"]), json={})))
    via_request = {"request": json.dumps({"key": merchant["test"]["secret_key"]})}
    assert_full_object(ok(anonymous.post(READ.format(id=intent["id"]), json=via_request)))


def test_checkout_update_with_the_secret_key_still_answers_the_whole_intent(
        api: httpx.Client, intent: dict[str, Any]) -> None:
    assert_full_object(ok(api.post(UPDATE.format(id=intent["id"]), json=crypto(TEST_USDT))))


def test_grpc_public_checkout_read_hides_merchant_and_customer_data(
        channel: grpc.Channel, merchant: dict[str, Any], intent: dict[str, Any]) -> None:
    stub = payment_intents_pb2_grpc.PaymentIntentServiceStub(channel)
    got = stub.GetCheckoutPaymentIntent(pb.GetCheckoutPaymentIntentRequest(
        id=intent["id"], key=merchant["test"]["public_key"], client_secret=intent["client_secret"])).payment_intent
    assert got.id == intent["id"]
    assert not got.metadata.fields and got.merchant_order_id == "" and got.receipt_email == ""
    assert not got.HasField("shipping_address") and got.customer.email == "" and got.customer.phone == ""
