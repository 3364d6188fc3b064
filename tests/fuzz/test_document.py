"""The OpenAPI document holds the facade to its answers; these pin what the fuzzer relies on."""

from __future__ import annotations

from typing import Any

import paygate.v1 as api
import pytest

from gateway_http import openapi
from gateway_http.routes import bindings


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi.document(bindings(api.services()))


def _operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for ops in document["paths"].values() for op in ops.values()]


def test_every_operation_documents_each_error_status_with_the_error_envelope(document: dict[str, Any]) -> None:
    for op in _operations(document):
        for status in openapi.ERROR_STATUSES:
            schema = op["responses"][status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Error"}, (op["operationId"], status)
        assert "default" not in op["responses"]


def test_the_error_envelope_is_exact(document: dict[str, Any]) -> None:
    error = document["components"]["schemas"]["Error"]
    assert error["required"] == ["code", "error_code", "msg", "data"] and error["additionalProperties"] is False
    assert error["properties"]["data"] == {"type": "object", "maxProperties": 0}


def test_the_success_envelope_requires_its_fields(document: dict[str, Any]) -> None:
    op = document["paths"]["/v1/customers/{id}"]["get"]
    schema = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["required"] == ["code", "error_code", "msg", "data"] and schema["additionalProperties"] is False
    assert schema["properties"]["code"] == {"const": 0}


def test_a_response_message_lists_every_field_as_required(document: dict[str, Any]) -> None:
    customer = document["components"]["schemas"]["Customer"]
    assert set(customer["required"]) == set(customer["properties"]) and customer["additionalProperties"] is False


def test_a_link_deletion_answers_without_data(document: dict[str, Any]) -> None:
    op = document["paths"]["/v1/payment_links/{id}"]["delete"]
    assert "data" not in op["responses"]["200"]["content"]["application/json"]["schema"]["properties"]


def test_a_create_call_links_to_the_calls_on_the_new_id(document: dict[str, Any]) -> None:
    links = document["paths"]["/v1/customers"]["post"]["responses"]["200"]["links"]
    assert set(links) == {"GetCustomer", "UpdateCustomer", "DeleteCustomer"}
    assert links["GetCustomer"]["parameters"] == {"path.id": "$response.body#/data/id"}
