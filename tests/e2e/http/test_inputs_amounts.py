"""Money and integer input (DESIGN §14): ASCII decimal only, at most 18 integer digits and the currency's
decimals; anything else is `400 parameter_invalid` naming the field, never a 500 and never silently accepted."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
import pytest
from paygate.v1 import payment_intents_pb2 as pipb
from paygate.v1 import payment_intents_pb2_grpc, products_pb2_grpc
from paygate.v1 import products_pb2 as ppb
from paygate.v1.money_pb2 import Price

from tests.conftest import fails, ok
from tests.e2e.grpc.support import fails as grpc_fails
from tests.e2e.http.builders import fixed_price_body, link_body, variant_product
from tests.e2e.payment_intents.support import TEST_ETH, crypto

NOT_MONEY = ["\u0661\u0660", "1_0", "-0", "-1", "+1", " 10", "10 ", "NaN", "Infinity", "1e3", "0010", "1.", ".5",
             "1,5", "0x10", "", "²"]


@pytest.mark.parametrize("amount", [a for a in NOT_MONEY if a])
def test_intent_amount_that_is_not_ascii_decimal_is_parameter_invalid(api: httpx.Client, amount: str) -> None:
    fails(api.post("/v1/payment_intents", json={"amount": amount, "currency": "USD"}), 400, "parameter_invalid",
          "amount")


def test_intent_amount_with_more_than_18_integer_digits_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/payment_intents", json={"amount": "1" + "0" * 18, "currency": "USD"}), 400,
          "parameter_invalid", "amount")
    ok(api.post("/v1/payment_intents", json={"amount": "9" * 18, "currency": "USD"}))


def test_intent_amount_with_more_decimals_than_the_currency_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/payment_intents", json={"amount": "1.001", "currency": "USD"}), 400, "parameter_invalid",
          "amount")


def test_a_large_usd_intent_paid_in_eth_gets_a_quote_not_a_500(api: httpx.Client) -> None:
    intent = ok(api.post("/v1/payment_intents", json={"amount": "100000000000000", "currency": "USD"}))
    data = ok(api.post(f"/v1/payment_intents/{intent['id']}", json=crypto(TEST_ETH)))
    amount = data["payment_intents"][0]["charges"][0]["payment_method_options"]["crypto"]["amount"]
    assert "e" not in amount.lower() and len(amount.partition(".")[2]) <= 18


def test_the_largest_usd_intent_paid_in_eth_gets_a_quote_not_a_500(api: httpx.Client) -> None:
    intent = ok(api.post("/v1/payment_intents", json={"amount": "9" * 18 + ".99", "currency": "USD"}))
    response = api.post(f"/v1/payment_intents/{intent['id']}", json=crypto(TEST_ETH))
    assert response.status_code in (200, 400), response.text


@pytest.mark.parametrize("value", ["²", "\u0663\u0660\u0660", "3_00", " 300", "300 ", "+300", "3e2"])
def test_integer_field_given_a_non_ascii_or_odd_string_is_parameter_invalid(api: httpx.Client, value: str) -> None:
    fails(api.post("/v1/payment_intents", json={"amount": "1", "currency": "USD", "expires_in": value}), 400,
          "parameter_invalid", "expires_in")


def test_integer_field_out_of_range_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/payment_intents", json={"amount": "1", "currency": "USD", "expires_in": 2**63}), 400,
          "parameter_invalid", "expires_in")
    fails(api.post("/v1/payment_intents", json={"amount": "1", "currency": "USD", "expires_in": "9" * 400}), 400,
          "parameter_invalid", "expires_in")


@pytest.mark.parametrize("value", ["\u0663", "²", "1_0"])
def test_integer_query_parameter_given_non_ascii_digits_is_parameter_invalid(api: httpx.Client, value: str) -> None:
    fails(api.get("/v1/payment_intents", params={"page_size": value}), 400, "parameter_invalid", "page_size")


@pytest.mark.parametrize("amount", ["\u0661\u0660", "1_0", "-0", " 10", "1e1", "1" + "0" * 18])
def test_product_price_that_is_not_ascii_decimal_is_parameter_invalid(api: httpx.Client, amount: str) -> None:
    fails(api.post("/v1/products", json=fixed_price_body(amount)), 400, "parameter_invalid", "fixed_price.amount")


def test_product_price_with_more_decimals_than_the_currency_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/products", json=fixed_price_body("1.001")), 400, "parameter_invalid", "fixed_price.amount")


def test_discount_percentage_with_non_ascii_digits_is_parameter_invalid(api: httpx.Client) -> None:
    plan = {"name": "Monthly", "billing_cycle": "month", "billing_cycle_interval": 1,
            "pricing_policies": [{"policy_type": "FIXED", "after_cycle": 0, "discount_percentage": "\u0661\u0660"}]}
    fails(api.post("/v1/products", json=fixed_price_body(selling_plans=[plan])), 400, "parameter_invalid",
          "selling_plans[0].pricing_policies[0].discount_percentage")


def test_a_link_purchase_whose_total_exceeds_18_integer_digits_is_parameter_invalid(api: httpx.Client) -> None:
    product = variant_product(api, prices=("999999999999999999",))
    link = ok(api.post("/v1/payment_links", json=link_body(product)))
    body = {"payment_link_id": link["id"], "primary_variant": {"variant_id": product["variants"][0]["id"],
                                                               "quantity": 10}}
    fails(api.post("/v1/payment_intents", json=body), 400, "parameter_invalid", "primary_variant.quantity")


def test_refund_amount_with_non_ascii_digits_is_parameter_invalid(api: httpx.Client) -> None:
    intent = ok(api.post("/v1/payment_intents", json={"amount": "1", "currency": "USD"}))
    response = api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "\u0661"})
    fails(response, 400, "parameter_invalid", "amount")


# ---------------------------------------------------------------- gRPC: the same rules without the JSON facade


def test_grpc_intent_amount_with_non_ascii_digits_is_invalid_argument(channel: grpc.Channel,
                                                                       grpc_auth: list[Any]) -> None:
    stub = payment_intents_pb2_grpc.PaymentIntentServiceStub(channel)
    grpc_fails(lambda: stub.CreatePaymentIntent(pipb.CreatePaymentIntentRequest(amount="\u0661\u0660", currency="USD"),
                                                metadata=grpc_auth),
               grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", "amount")


def test_grpc_product_price_with_underscore_is_invalid_argument(channel: grpc.Channel,
                                                                grpc_auth: list[Any]) -> None:
    stub = products_pb2_grpc.ProductServiceStub(channel)
    request = ppb.CreateProductRequest(name="Mug", default_currency="USD", fixed_price=Price(amount="1_000"))
    grpc_fails(lambda: stub.CreateProduct(request, metadata=grpc_auth),
               grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", "fixed_price.amount")
