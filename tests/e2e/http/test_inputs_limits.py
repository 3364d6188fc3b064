"""Size limits on every free-text field, metadata and array (DESIGN §14), checked once for every RPC: a clear
`400 parameter_invalid` naming the field, and nothing stored."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
from google.protobuf import struct_pb2
from paygate.v1 import customers_pb2, customers_pb2_grpc

from tests.conftest import fails, ok
from tests.e2e.grpc.support import fails as grpc_fails
from tests.e2e.http.builders import fixed_price_body

INTENT = {"amount": "1", "currency": "USD"}


def test_metadata_value_over_500_characters_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/products", json=fixed_price_body(metadata={"note": "v" * 501})), 400, "parameter_invalid",
          "metadata")
    ok(api.post("/v1/products", json=fixed_price_body(metadata={"note": "v" * 500})))
    assert ok(api.get("/v1/products"))["total"] == 1


def test_metadata_value_over_500_characters_on_a_customer_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/customers", json={"name": "Ann", "metadata": {"note": "v" * 501}}), 400,
          "parameter_invalid", "metadata")


def test_metadata_value_over_500_characters_on_an_intent_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/payment_intents", json={**INTENT, "metadata": {"note": "v" * 501}}), 400,
          "parameter_invalid", "metadata")


def test_metadata_nested_value_over_500_characters_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/customers", json={"metadata": {"deep": {"a": ["v" * 600]}}}), 400, "parameter_invalid",
          "metadata")


def test_metadata_with_more_than_50_keys_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/customers", json={"metadata": {f"k{i}": "v" for i in range(51)}}), 400,
          "parameter_invalid", "metadata")


def test_metadata_key_over_40_characters_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/customers", json={"metadata": {"k" * 41: "v"}}), 400, "parameter_invalid", "metadata")


def test_option_name_over_255_characters_is_parameter_invalid(api: httpx.Client) -> None:
    long = "n" * 256
    body = {"name": "T", "default_currency": "USD", "options": [{"name": long, "values": [{"value": "S"}]}],
            "variants": [{"option_values": {long: "S"}, "price": {"amount": "1"}}]}
    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "options[0].name")


def test_option_value_over_255_characters_is_parameter_invalid(api: httpx.Client) -> None:
    long = "v" * 256
    body = {"name": "T", "default_currency": "USD", "options": [{"name": "Size", "values": [{"value": long}]}],
            "variants": [{"option_values": {"Size": long}, "price": {"amount": "1"}}]}
    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "options[0].values[0].value")


def test_shipping_address_line_over_255_characters_is_parameter_invalid(api: httpx.Client) -> None:
    body = {**INTENT, "shipping_address": {"line1": "l" * 256, "country": "US"}}
    fails(api.post("/v1/payment_intents", json=body), 400, "parameter_invalid", "shipping_address.line1")


def test_any_string_over_5000_characters_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.post("/v1/payment_intents", json={**INTENT, "permanent_deposit_asset_id": "a" * 5001}), 400,
          "parameter_invalid", "permanent_deposit_asset_id")


def test_url_over_2000_characters_is_parameter_invalid(api: httpx.Client) -> None:
    url = "https://shop.example.com/" + "p" * 2000
    fails(api.post("/v1/payment_intents", json={**INTENT, "return_url": url}), 400, "parameter_invalid",
          "return_url")


def test_email_over_254_characters_is_parameter_invalid(api: httpx.Client) -> None:
    email = "a" * 64 + "@" + ("d" * 60 + ".") * 3 + "example.com"
    assert len(email) > 254
    fails(api.post("/v1/customers", json={"email": email}), 400, "parameter_invalid", "email")


def test_a_repeated_field_over_100_items_is_parameter_invalid(api: httpx.Client) -> None:
    response = api.get("/v1/payment_intents", params=[("expand", "invoice")] * 101)
    fails(response, 400, "parameter_invalid", "expand")


def test_a_map_over_50_entries_is_parameter_invalid(api: httpx.Client) -> None:
    body = {"name": "T", "default_currency": "USD",
            "variants": [{"option_values": {f"o{i}": "v" for i in range(51)}, "price": {"amount": "1"}}]}
    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "variants[0].option_values")


def test_grpc_metadata_value_over_500_characters_is_invalid_argument(channel: grpc.Channel,
                                                                     grpc_auth: list[Any]) -> None:
    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    metadata = struct_pb2.Struct()
    metadata.update({"note": "v" * 501})
    grpc_fails(lambda: stub.CreateCustomer(customers_pb2.CreateCustomerRequest(name="Ann", metadata=metadata),
                                           metadata=grpc_auth),
               grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", "metadata")
