"""The JSON facade's envelope, authentication, limits and plumbing (spec "Conventions", "Authentication",
"Errors"; DESIGN.md §2, §3, §12)."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from tests.conftest import basic, fails, ok
from tests.e2e.http.test_route_table import DOCUMENTED, DOCUMENTED_PATHS
from tests.harness import TLS

MIB = 1 << 20


def raw_client(service: Any, authorization: str | None = None) -> httpx.Client:
    headers = {"Authorization": authorization} if authorization is not None else {}
    return httpx.Client(base_url=service.http_url, headers=headers, timeout=30, verify=TLS)


# ---------------------------------------------------------------- envelope


def test_success_envelope_has_code_error_code_msg_and_data(api):
    body = api.post("/v1/customers", json={"name": "Ann"}).json()
    assert set(body) == {"code", "error_code", "msg", "data"}
    assert body["code"] == 0 and body["error_code"] == "success" and body["msg"] == "success"
    assert isinstance(body["data"], dict)


def test_success_response_is_json(api):
    response = api.get("/v1/assets")
    assert response.headers["content-type"].startswith("application/json")


def test_error_envelope_has_status_code_error_code_msg_and_empty_data(api):
    response = api.get("/v1/customers/cus_000000000000000000000000")
    body = response.json()
    assert set(body) == {"code", "error_code", "msg", "data"}
    assert response.status_code == 404 and body["code"] == 404
    assert body["error_code"] == "customer_not_found" and body["data"] == {}
    assert isinstance(body["msg"], str) and body["msg"]


def test_empty_success_returns_data_as_empty_object(api):
    created = ok(api.post("/v1/customers", json={"name": "Gone"}))
    assert ok(api.delete(f"/v1/customers/{created['id']}")) == {}


def test_wrong_field_type_is_parameter_invalid_naming_the_field(api):
    fails(api.post("/v1/customers", json={"name": 5}), 400, "parameter_invalid", field="name")


def test_nested_wrong_field_type_names_the_field_path(api):
    # A money amount may be a JSON number (the SDK's decimals), so the wrong type is a string's field given a number.
    body = {"name": "Hat", "default_currency": "USD", "variants": [{"price": {"amount": "7"}, "sku": 7}]}
    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", field="variants[0].sku")


# ---------------------------------------------------------------- authentication


def test_missing_key_is_unauthorized(anonymous):
    fails(anonymous.get("/v1/customers"), 401, "unauthorized")


def test_missing_key_sends_www_authenticate_basic(anonymous):
    response = anonymous.get("/v1/customers")
    assert response.headers["www-authenticate"].startswith("Basic")


def test_wrong_key_is_unauthorized(service):
    with raw_client(service, basic("sk_test_000000000000000000000000000000")) as client:
        fails(client.get("/v1/customers"), 401, "unauthorized")


def test_wrong_key_sends_www_authenticate_basic(service):
    with raw_client(service, basic("sk_test_000000000000000000000000000000")) as client:
        assert client.get("/v1/customers").headers["www-authenticate"].startswith("Basic")


@pytest.mark.parametrize("authorization", [
    "Basic !!!not-base64!!!",
    "Basic " + base64.b64encode(b"\xff\xfe:").decode(),
    "Basic",
    "Basic " + base64.b64encode(b":").decode(),
    "Token sk_test_abc",
    "sk_test_abc",
])
def test_malformed_authorization_is_unauthorized(service, authorization):
    with raw_client(service, authorization) as client:
        response = client.get("/v1/customers")
    fails(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Basic")


def test_secret_key_as_basic_username_with_empty_password_is_accepted(api):
    ok(api.get("/v1/customers"))


def test_bearer_secret_key_is_accepted(service, merchant):
    with raw_client(service, f"Bearer {merchant['test']['secret_key']}") as client:
        ok(client.get("/v1/customers"))


@pytest.mark.parametrize("mode", ["test", "live"])
def test_public_key_on_a_server_path_is_forbidden(service, merchant, mode):
    with raw_client(service, basic(merchant[mode]["public_key"])) as client:
        fails(client.get("/v1/customers"), 403, "forbidden")


def test_public_key_on_a_server_post_is_forbidden_and_creates_nothing(service, api, merchant):
    with raw_client(service, basic(merchant["test"]["public_key"])) as client:
        fails(client.post("/v1/customers", json={"name": "Nope"}), 403, "forbidden")
    assert ok(api.get("/v1/customers"))["total"] == 0


# ---------------------------------------------------------------- routing


def test_unknown_route_is_not_found_envelope(api):
    fails(api.get("/v1/nothing_here"), 404, "not_found")


def test_unknown_route_without_key_is_not_found_envelope(anonymous):
    fails(anonymous.get("/nothing/here/either"), 404, "not_found")


def test_wrong_method_is_405_envelope(api):
    fails(api.put("/v1/customers", json={}), 405, "method_not_allowed")


def test_wrong_method_on_a_get_only_path_is_405_envelope(api):
    fails(api.delete("/v1/assets"), 405, "method_not_allowed")


def test_wrong_method_lists_the_allowed_methods(api):
    response = api.delete("/v1/assets")
    assert "GET" in response.headers.get("allow", ""), response.headers


def test_head_on_a_get_path_answers_without_body(api):
    response = api.head("/v1/assets")
    assert response.status_code == 200 and response.content == b""


# ---------------------------------------------------------------- request bodies


def test_non_json_content_type_with_a_body_is_unsupported_media_type(api):
    response = api.post("/v1/customers", content=b"name=Ann", headers={"Content-Type": "text/plain"})
    fails(response, 415, "unsupported_media_type")


def test_form_content_type_is_unsupported_media_type(api):
    fails(api.post("/v1/customers", data={"name": "Ann"}), 415, "unsupported_media_type")


def test_body_without_content_type_is_unsupported_media_type(api):
    response = api.post("/v1/customers", content=b'{"name": "Ann"}')
    fails(response, 415, "unsupported_media_type")


def test_bodyless_form_post_is_unsupported_media_type_and_changes_nothing(api):
    # A cross-site HTML form with no fields posts an empty body with a form content type; the browser may attach
    # the merchant's cached Basic credentials. It must be refused before the call runs.
    created = ok(api.post("/v1/payment_intents", json={"amount": "10.50", "currency": "USD"}))
    for ctype in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"):
        response = api.post(f"/v1/payment_intents/{created['id']}/cancel", content=b"",
                            headers={"Content-Type": ctype})
        fails(response, 415, "unsupported_media_type", "Content-Type")
    assert ok(api.get(f"/v1/payment_intents/{created['id']}"))["status"] == "RequiresPaymentMethod"


def test_bodyless_post_without_content_type_is_unsupported_media_type(api):
    fails(api.post("/v1/customers"), 415, "unsupported_media_type", "Content-Type")


def test_json_content_type_with_charset_is_accepted(api):
    response = api.post("/v1/customers", content=b'{"name": "Ann"}',
                        headers={"Content-Type": "application/json; charset=utf-8"})
    assert ok(response)["name"] == "Ann"


def test_body_larger_than_one_mebibyte_is_request_too_large(api):
    body = b'{"description": "' + b"x" * MIB + b'"}'
    response = api.post("/v1/customers", content=body, headers={"Content-Type": "application/json"})
    fails(response, 413, "request_too_large")


def test_chunked_body_larger_than_one_mebibyte_is_request_too_large(api):
    def chunks():
        yield b'{"description": "'
        for _ in range(17):
            yield b"x" * (64 * 1024)
        yield b'"}'

    response = api.post("/v1/customers", content=chunks(), headers={"Content-Type": "application/json"})
    fails(response, 413, "request_too_large")


def test_body_just_under_the_limit_is_read(api):
    body = b'{"metadata": {"pad": "' + b"x" * (MIB - 100) + b'"}}'
    response = api.post("/v1/customers", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code != 413, response.text


def test_invalid_json_is_parameter_invalid(api):
    response = api.post("/v1/customers", content=b'{"name": ', headers={"Content-Type": "application/json"})
    fails(response, 400, "parameter_invalid", field="body")


def test_json_array_body_is_parameter_invalid(api):
    fails(api.post("/v1/customers", json=[{"name": "Ann"}]), 400, "parameter_invalid", field="body")


def test_json_scalar_body_is_parameter_invalid(api):
    fails(api.post("/v1/customers", json="Ann"), 400, "parameter_invalid", field="body")


def test_invalid_utf8_body_is_parameter_invalid(api):
    response = api.post("/v1/customers", content=b'{"name": "\xff\xfe"}', headers={"Content-Type": "application/json"})
    fails(response, 400, "parameter_invalid", field="body")


def test_nan_literal_is_parameter_invalid(api):
    response = api.post("/v1/customers", content=b'{"metadata": {"x": NaN}}',
                        headers={"Content-Type": "application/json"})
    fails(response, 400, "parameter_invalid", field="body")


def test_deeply_nested_json_is_parameter_invalid_not_a_server_error(api):
    response = api.post("/v1/customers", content=b"[" * 200_000, headers={"Content-Type": "application/json"})
    fails(response, 400, "parameter_invalid", field="body")


def test_deeply_nested_metadata_is_parameter_invalid_not_a_server_error(api):
    body = b'{"metadata":' + b'{"a":' * 150 + b"1" + b"}" * 151
    response = api.post("/v1/customers", content=body, headers={"Content-Type": "application/json"})
    fails(response, 400, "parameter_invalid", field="metadata")


def test_nul_character_in_a_string_field_is_parameter_invalid(api):
    fails(api.post("/v1/customers", json={"name": "a\u0000b"}), 400, "parameter_invalid", field="name")


def test_nul_character_in_a_path_segment_is_no_route(api):
    # A segment that is not shaped like an id is no route at all (gateway_http/routes.py, DESIGN §12).
    fails(api.get("/v1/customers/%00"), 404, "not_found")


def test_nul_character_inside_a_path_id_is_parameter_invalid(api):
    # Refused the same on both backends (PostgreSQL cannot even hold a NUL), never a 500 or a lookup.
    fails(api.get("/v1/customers/cus_%00"), 400, "parameter_invalid", field="id")


def test_null_in_body_means_not_given(api):
    created = ok(api.post("/v1/customers", json={"name": "Ann", "email": None, "metadata": None}))
    assert created["email"] == "" and created["metadata"] == {}


def test_post_without_body_is_an_empty_object(api):
    # A POST declares a JSON content type even without a body (see the bodyless form POST test above).
    assert ok(api.post("/v1/customers", headers={"Content-Type": "application/json"}))["id"].startswith("cus_")


def test_get_with_json_content_type_and_no_body_is_fine(api):
    ok(api.get("/v1/customers", headers={"Content-Type": "application/json"}))


def test_delete_with_json_content_type_and_no_body_is_fine(api):
    created = ok(api.post("/v1/customers", json={"name": "Bye"}))
    response = api.delete(f"/v1/customers/{created['id']}", headers={"Content-Type": "application/json"})
    assert ok(response) == {}


# ---------------------------------------------------------------- subscriptions (no longer 501), internals


def test_subscriptions_list_is_an_offset_page(api):
    assert ok(api.get("/v1/subscriptions")) == {"offset": 0, "limit": 20, "total": 0, "data": []}


def test_an_unknown_subscription_leaks_no_internals(api):
    msg = api.post("/v1/subscriptions/sub_x/cancel", json={}).json()["msg"]
    assert "Traceback" not in msg and 'File "' not in msg and "Error" not in msg


def test_an_unknown_subscription_is_subscription_not_found(api):
    fails(api.post("/v1/subscriptions/sub_x/cancel", json={}), 404, "subscription_not_found")


# ---------------------------------------------------------------- request id


def test_request_id_header_is_present_on_success(api):
    assert api.get("/v1/assets").headers.get("x-request-id")


def test_request_id_header_is_present_on_error(anonymous):
    assert anonymous.get("/v1/customers").headers.get("x-request-id")


def test_request_id_header_is_present_on_unknown_route(anonymous):
    assert anonymous.get("/v1/nothing_here").headers.get("x-request-id")


def test_request_ids_differ_between_requests(api):
    assert api.get("/v1/assets").headers["x-request-id"] != api.get("/v1/assets").headers["x-request-id"]


def test_sent_request_id_is_echoed(api):
    response = api.get("/v1/assets", headers={"X-Request-Id": "req-test-123"})
    assert response.headers["x-request-id"] == "req-test-123"


def test_sent_request_id_is_echoed_on_error(anonymous):
    response = anonymous.get("/v1/customers", headers={"X-Request-Id": "req-test-456"})
    assert response.headers["x-request-id"] == "req-test-456"


def test_overlong_request_id_does_not_fail_the_request(api):
    response = api.get("/v1/assets", headers={"X-Request-Id": "r" * 20_000})
    assert response.status_code == 200, response.text
    assert 0 < len(response.headers["x-request-id"]) <= 200


def test_non_ascii_request_id_does_not_fail_the_request(api):
    response = api.get("/v1/assets", headers={"X-Request-Id": "café".encode("latin-1")})
    assert response.status_code == 200, response.text
    assert response.headers["x-request-id"].isascii()


# ---------------------------------------------------------------- health and OpenAPI


def test_healthz_is_200(anonymous):
    response = anonymous.get("/healthz")
    assert response.status_code == 200


def test_healthz_needs_no_key_and_uses_the_envelope(anonymous):
    assert ok(anonymous.get("/healthz"))["status"] == "SERVING"


@pytest.fixture
def openapi(anonymous) -> dict[str, Any]:
    response = anonymous.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    return response.json()  # type: ignore[no-any-return]


def test_openapi_is_version_3(openapi):
    assert openapi["openapi"].startswith("3.")
    assert openapi["info"]["title"] and openapi["info"]["version"]


def test_openapi_lists_every_documented_path(openapi):
    assert set(openapi["paths"]) >= DOCUMENTED_PATHS


def test_openapi_lists_only_documented_paths(openapi):
    assert set(openapi["paths"]) - DOCUMENTED_PATHS == set()


def test_openapi_methods_are_the_documented_methods(openapi):
    listed = {(verb.upper(), path) for path, ops in openapi["paths"].items() for verb in ops}
    assert listed == set(DOCUMENTED)


def test_openapi_operations_have_unique_ids_and_responses(openapi):
    ids = [op["operationId"] for ops in openapi["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))
    for ops in openapi["paths"].values():
        for op in ops.values():
            assert "200" in op["responses"]


def test_openapi_path_parameters_are_declared(openapi):
    op = openapi["paths"]["/v1/customers/{id}"]["get"]
    assert {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}} in op["parameters"]


def test_openapi_refs_all_resolve(openapi):
    schemas = openapi["components"]["schemas"]

    def refs(node: Any) -> Any:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "$ref":
                    yield v
                else:
                    yield from refs(v)
        elif isinstance(node, list):
            for v in node:
                yield from refs(v)

    for ref in refs(openapi):
        assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] in schemas, ref


def test_openapi_declares_basic_auth(openapi):
    scheme = openapi["components"]["securitySchemes"]["basicAuth"]
    assert scheme["type"] == "http" and scheme["scheme"] == "basic"
    assert {"basicAuth": []} in openapi["security"]


def test_openapi_marks_public_catalogue_paths_as_needing_no_auth(openapi):
    assert openapi["paths"]["/v1/assets/all"]["get"]["security"] == []
    assert openapi["paths"]["/assets/all"]["get"]["security"] == []
