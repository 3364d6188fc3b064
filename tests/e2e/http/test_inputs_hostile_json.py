"""JSON that parses but cannot be stored (DESIGN §14): text holding a lone UTF-16 surrogate (a valid JSON escape that
no UTF-8 can encode) and numbers no double can hold. Each is a `400 parameter_invalid` naming the field, and
nothing is stored; never a 500."""

from __future__ import annotations

import json
import math
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import struct_pb2
from paygate.v1 import customers_pb2, customers_pb2_grpc

from tests.conftest import fails, ok
from tests.e2e.grpc.support import fails as grpc_fails
from tests.e2e.http.builders import variant_product_body

UPDATE = "/payment_intents/link/{id}/update"


def post_raw(client: httpx.Client, path: str, raw: str) -> httpx.Response:
    """Posts JSON text as written: `json=` would refuse to encode a lone surrogate."""
    return client.post(path, content=raw.encode(), headers={"Content-Type": "application/json"})


def refused(response: httpx.Response, msg: str) -> None:
    body = fails(response, 400, "parameter_invalid")
    assert body["msg"] == msg


def customer_count(api: httpx.Client) -> int:
    return int(ok(api.get("/v1/customers"))["total"])


# ---------------------------------------------------------------- lone surrogates


def test_a_lone_surrogate_in_a_string_field_is_parameter_invalid_naming_the_field(api: httpx.Client) -> None:
    refused(post_raw(api, "/v1/customers", r'{"name":"Ann \ud800"}'),
            r"name: not valid text (a lone surrogate \ud800)")
    assert customer_count(api) == 0


def test_a_lone_surrogate_in_a_metadata_key_is_parameter_invalid_naming_metadata(api: httpx.Client) -> None:
    refused(post_raw(api, "/v1/customers", r'{"metadata":{"\udfff":"x"}}'),
            r"metadata: the key '\udfff' is not valid text (a lone surrogate \udfff)")
    assert customer_count(api) == 0


def test_a_lone_surrogate_nested_in_metadata_is_parameter_invalid_naming_its_place(api: httpx.Client) -> None:
    refused(post_raw(api, "/v1/customers", r'{"metadata":{"notes":["ok","\udc00"]}}'),
            r"metadata.notes[1]: not valid text (a lone surrogate \udc00)")
    assert customer_count(api) == 0


def test_a_lone_surrogate_in_a_variant_option_values_key_is_parameter_invalid(api: httpx.Client) -> None:
    body = json.dumps(variant_product_body(("10",))).replace('{"Size": "XS"}', r'{"\ud800": "XS"}')
    refused(post_raw(api, "/v1/products", body),
            r"variants[0].option_values: the key '\ud800' is not valid text (a lone surrogate \ud800)")
    assert ok(api.get("/v1/products"))["total"] == 0


def test_a_surrogate_pair_is_one_character_and_is_accepted(api: httpx.Client) -> None:
    created = ok(post_raw(api, "/v1/customers", r'{"name":"Ann \ud83d\ude00"}'))
    assert created["name"] == "Ann \U0001f600"


def test_a_lone_surrogate_in_the_checkout_request_string_is_parameter_invalid_naming_the_field(
        api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any]) -> None:
    intent = ok(api.post("/v1/payment_intents", json={"amount": "1", "currency": "USD"}))
    # The escape is the inner JSON's own text: `json=` then sends it as plain ASCII.
    inner = r'{"client_secret":"' + intent["client_secret"] + r'","payment_method_type":"\ud800"}'
    response = anonymous.post(UPDATE.format(id=intent["id"]),
                              json={"key": merchant["test"]["public_key"], "request": inner})
    refused(response, r"request.payment_method_type: not valid text (a lone surrogate \ud800)")
    after = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert after["payment_method_type"] == intent["payment_method_type"]
    assert after["updated"] == intent["updated"]


# ---------------------------------------------------------------- numbers no double can hold


def test_a_metadata_number_beyond_a_double_is_parameter_invalid_naming_its_place(api: httpx.Client) -> None:
    refused(post_raw(api, "/v1/customers", '{"metadata":{"a":1e400}}'),
            "metadata.a: numbers must be finite and at most 1.7976931348623157e+308 in size")
    assert customer_count(api) == 0


def test_a_metadata_integer_too_large_for_a_double_is_parameter_invalid_naming_its_place(
        api: httpx.Client) -> None:
    refused(post_raw(api, "/v1/customers", '{"metadata":{"a":[-%s]}}' % ("9" * 400)),
            "metadata.a[0]: numbers must be finite and at most 1.7976931348623157e+308 in size")
    assert customer_count(api) == 0


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan], ids=["infinity", "minus-infinity", "nan"])
def test_grpc_metadata_number_that_is_not_finite_is_invalid_argument(
        channel: grpc.Channel, grpc_auth: list[Any], api: httpx.Client, number: float) -> None:
    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    metadata = struct_pb2.Struct()
    metadata.update({"ok": 1, "deep": {"a": [number]}})
    err = grpc_fails(lambda: stub.CreateCustomer(customers_pb2.CreateCustomerRequest(name="Ann", metadata=metadata),
                                                 metadata=grpc_auth),
                     grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", "metadata")
    assert err.details() == "metadata: the value of 'deep' holds a number that is not finite"
    assert customer_count(api) == 0
