"""The spec's `request` JSON string is attacker input: credentials are checked before any other field is decoded,
and its nesting and size are bounded before it is parsed, so no request can crash the process (which serves HTTP,
gRPC and the scheduler together)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from paygate.v1 import payment_intents_pb2 as pb
from paygate.v1 import payment_intents_pb2_grpc

from tests.conftest import fails, ok
from tests.e2e.grpc.own_service import alive, own_service
from tests.e2e.grpc.support import fails as grpc_fails
from tests.harness import TLS, Service

DEEP = "[" * 150_000


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def svc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    yield from own_service(request, tmp_path_factory)


@pytest.fixture(scope="module")
def shop(svc: Service) -> dict[str, Any]:
    merchant = svc.create_merchant()
    with httpx.Client(base_url=svc.http_url, auth=httpx.BasicAuth(merchant["test"]["secret_key"], ""),
                      timeout=30, verify=TLS) as api:
        intent = ok(api.post("/v1/payment_intents", json={"amount": "10.5", "currency": "USD"}))
    return {"merchant": merchant, "intent": intent}


def _post(svc: Service, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{svc.http_url}{path}", json=body, timeout=30, verify=TLS)


@pytest.fixture(scope="module")
def checkout(svc: Service) -> Iterator[payment_intents_pb2_grpc.PaymentIntentServiceStub]:
    with grpc.insecure_channel(svc.grpc_addr) as channel:
        yield payment_intents_pb2_grpc.PaymentIntentServiceStub(channel)


@pytest.mark.parametrize("path", ["/v1/payment_intents/link/pi_x", "/v1/payment_intents/link/pi_x/update"])
def test_deeply_nested_request_string_without_credentials_is_401_over_http_and_the_server_lives(svc, path):
    fails(_post(svc, path, {"request": DEEP}), 401, "unauthorized")
    assert alive(svc)


def test_deeply_nested_request_string_without_credentials_is_401_over_grpc_and_the_server_lives(svc, checkout):
    grpc_fails(lambda: checkout.GetCheckoutPaymentIntent(
        pb.GetCheckoutPaymentIntentRequest(id="pi_x", request=DEEP), timeout=30),
        grpc.StatusCode.UNAUTHENTICATED, "unauthorized")
    grpc_fails(lambda: checkout.UpdateCheckoutPaymentIntent(
        pb.UpdateCheckoutPaymentIntentRequest(id="pi_x", request=DEEP), timeout=30),
        grpc.StatusCode.UNAUTHENTICATED, "unauthorized")
    assert alive(svc)


def test_deep_request_string_beside_valid_credentials_over_grpc_is_parameter_invalid(svc, shop, checkout):
    request = pb.UpdateCheckoutPaymentIntentRequest(id=shop["intent"]["id"], request="{" * 150_000,
                                                    **_body_credentials(shop))
    grpc_fails(lambda: checkout.UpdateCheckoutPaymentIntent(request, timeout=30),
               grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", field="request")
    assert alive(svc)


def _deep_with(shop: dict[str, Any]) -> str:
    intent = shop["intent"]
    return (f'{{"key": "{shop["merchant"]["test"]["public_key"]}", "client_secret": "{intent["client_secret"]}", '
            f'"payment_method_options": {"[" * 150_000}')


def _body_credentials(shop: dict[str, Any]) -> dict[str, str]:
    return {"key": shop["merchant"]["test"]["public_key"], "client_secret": shop["intent"]["client_secret"]}


def test_credentials_inside_an_unreadable_request_string_are_401_and_the_server_lives(svc, shop):
    # Nothing of an anonymous caller's string is decoded once it is found too deep to read safely.
    fails(_post(svc, f"/v1/payment_intents/link/{shop['intent']['id']}", {"request": _deep_with(shop)}), 401,
          "unauthorized")
    assert alive(svc)


def test_deep_request_string_beside_valid_body_credentials_is_parameter_invalid(svc, shop):
    body = {**_body_credentials(shop), "request": "[" * 150_000}
    fails(_post(svc, f"/v1/payment_intents/link/{shop['intent']['id']}", body), 400, "parameter_invalid",
          field="request")
    assert alive(svc)


def test_deeply_nested_request_string_from_a_secret_key_holder_is_parameter_invalid(svc, shop):
    key = shop["merchant"]["test"]["secret_key"]
    response = httpx.post(f"{svc.http_url}/v1/customers/identities/resolve", json={"request": DEEP},
                          auth=httpx.BasicAuth(key, ""), timeout=30, verify=TLS)
    fails(response, 400, "parameter_invalid", field="request")
    assert alive(svc)


def test_request_string_without_key_or_client_secret_is_401(svc, shop):
    intent = shop["intent"]
    path = f"/v1/payment_intents/link/{intent['id']}"
    fails(_post(svc, path, {"request": json.dumps({"payment_method_type": "crypto"})}), 401, "unauthorized")
    fails(_post(svc, path, {"request": json.dumps({"client_secret": intent["client_secret"]})}), 401,
          "unauthorized")
    fails(_post(svc, path, {"request": json.dumps({"key": shop["merchant"]["test"]["public_key"]})}), 401,
          "unauthorized")


def test_credentials_are_checked_before_other_fields_are_decoded(svc, shop):
    # A wrong type in another field would be 400 if it were decoded first: the bad key answers 401 before that.
    inner = json.dumps({"key": "pk_test_nosuchkey", "client_secret": "x", "payment_method_type": 12})
    fails(_post(svc, f"/v1/payment_intents/link/{shop['intent']['id']}/update", {"request": inner}), 401,
          "unauthorized")


def test_oversized_request_string_is_refused_before_parsing(svc, shop):
    inner = json.dumps({"payment_method_type": "crypto", "padding": "x" * 300_000})
    body = {**_body_credentials(shop), "request": inner}
    fails(_post(svc, f"/v1/payment_intents/link/{shop['intent']['id']}", body), 400, "parameter_invalid",
          field="request")


def test_request_string_with_valid_credentials_still_works(svc, shop):
    intent = shop["intent"]
    inner = json.dumps({"key": shop["merchant"]["test"]["public_key"], "client_secret": intent["client_secret"]})
    assert ok(_post(svc, f"/v1/payment_intents/link/{intent['id']}", {"request": inner}))["id"] == intent["id"]


def test_deeply_nested_http_body_is_parameter_invalid_and_the_server_lives(svc):
    response = httpx.post(f"{svc.http_url}/v1/payment_intents/link/pi_x", content=b'{"a":' * 150_000,
                          headers={"Content-Type": "application/json"}, timeout=30, verify=TLS)
    fails(response, 400, "parameter_invalid", field="body")
    assert alive(svc)
