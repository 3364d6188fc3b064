"""Idempotency-Key on POST over HTTP (DESIGN.md §2): replay byte for byte, reuse refused, scoped per merchant and
mode. The in-progress case is covered at the store level in tests/unit/idempotency/test_idempotency_store.py."""

from __future__ import annotations

import uuid

import httpx

from tests.conftest import fails, ok


def new_key() -> str:
    return f"idem-{uuid.uuid4()}"


def customer_total(client: httpx.Client) -> int:
    return ok(client.get("/v1/customers"))["total"]  # type: ignore[no-any-return]


def post_customer(client: httpx.Client, key: str | None, body: dict[str, object] | None = None) -> httpx.Response:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post("/v1/customers", json=body if body is not None else {"name": "Ann"}, headers=headers)


# ---------------------------------------------------------------- replay


def test_retry_with_same_key_replays_the_response_byte_for_byte(api):
    key = new_key()
    first = post_customer(api, key)
    second = post_customer(api, key)
    assert first.status_code == second.status_code == 200
    assert second.content == first.content


def test_replay_carries_idempotent_replayed_header(api):
    key = new_key()
    post_customer(api, key)
    assert post_customer(api, key).headers.get("idempotent-replayed") == "true"


def test_first_response_has_no_idempotent_replayed_header(api):
    assert "idempotent-replayed" not in post_customer(api, new_key()).headers


def test_retry_with_same_key_creates_only_one_object(api):
    key = new_key()
    for _ in range(3):
        ok(post_customer(api, key))
    assert customer_total(api) == 1


def test_replay_returns_the_same_object_id(api):
    key = new_key()
    assert ok(post_customer(api, key))["id"] == ok(post_customer(api, key))["id"]


def test_same_body_with_different_json_spelling_is_still_a_replay(api):
    key = new_key()
    first = api.post("/v1/customers", content=b'{"name":"Ann","email":"ann@example.com"}',
                     headers={"Idempotency-Key": key, "Content-Type": "application/json"})
    second = api.post("/v1/customers", content=b'{ "email": "ann@example.com",  "name": "Ann" }',
                      headers={"Idempotency-Key": key, "Content-Type": "application/json"})
    assert second.content == first.content
    assert customer_total(api) == 1


def test_replay_of_a_struct_body_is_byte_identical(api):
    key = new_key()
    body = {"name": "Ann", "metadata": {"z": 1, "a": "x", "m": {"k": [1, 2.5, True, None]}}}
    first = post_customer(api, key, body)
    assert post_customer(api, key, body).content == first.content


def test_without_key_two_posts_create_two_objects(api):
    ok(post_customer(api, None))
    ok(post_customer(api, None))
    assert customer_total(api) == 2


def test_different_keys_create_different_objects(api):
    assert ok(post_customer(api, new_key()))["id"] != ok(post_customer(api, new_key()))["id"]


# ---------------------------------------------------------------- reuse refused


def test_same_key_with_different_body_is_idempotency_key_reused(api):
    key = new_key()
    ok(post_customer(api, key, {"name": "Ann"}))
    fails(post_customer(api, key, {"name": "Bob"}), 400, "idempotency_key_reused")


def test_reused_key_with_different_body_creates_nothing(api):
    key = new_key()
    ok(post_customer(api, key, {"name": "Ann"}))
    post_customer(api, key, {"name": "Bob"})
    assert customer_total(api) == 1


def test_same_key_on_a_different_endpoint_is_idempotency_key_reused(api):
    key = new_key()
    ok(post_customer(api, key))
    response = api.post("/v1/products", json={"name": "Hat", "default_currency": "USD",
                                              "fixed_price": {"amount": "5"}}, headers={"Idempotency-Key": key})
    fails(response, 400, "idempotency_key_reused")


def test_same_key_on_a_different_path_of_the_same_endpoint_kind_is_idempotency_key_reused(api):
    key = new_key()
    a = ok(api.post("/v1/customers", json={"name": "A"}))
    b = ok(api.post("/v1/customers", json={"name": "B"}))
    ok(api.post(f"/v1/customers/{a['id']}", json={"name": "A2"}, headers={"Idempotency-Key": key}))
    response = api.post(f"/v1/customers/{b['id']}", json={"name": "A2"}, headers={"Idempotency-Key": key})
    fails(response, 400, "idempotency_key_reused")


# ---------------------------------------------------------------- scope


def test_keys_are_per_merchant(api, other_api):
    key = new_key()
    mine = ok(post_customer(api, key))
    theirs_response = post_customer(other_api, key)
    theirs = ok(theirs_response)
    assert theirs["id"] != mine["id"]
    assert "idempotent-replayed" not in theirs_response.headers


def test_another_merchant_may_use_the_same_key_with_a_different_body(api, other_api):
    key = new_key()
    ok(post_customer(api, key, {"name": "Ann"}))
    assert ok(post_customer(other_api, key, {"name": "Someone else"}))["name"] == "Someone else"


def test_keys_are_per_mode(api, live_api):
    key = new_key()
    test_object = ok(post_customer(api, key))
    live_response = post_customer(live_api, key)
    assert ok(live_response)["id"] != test_object["id"]
    assert "idempotent-replayed" not in live_response.headers
    assert customer_total(api) == 1 and customer_total(live_api) == 1


# ---------------------------------------------------------------- error outcomes


def test_error_outcome_is_replayed_byte_for_byte(api):
    key = new_key()
    first = post_customer(api, key, {"email": "not-an-email"})
    fails(first, 400, "parameter_invalid", field="email")
    second = post_customer(api, key, {"email": "not-an-email"})
    assert second.status_code == 400 and second.content == first.content


def test_error_replay_carries_idempotent_replayed_header(api):
    key = new_key()
    post_customer(api, key, {"email": "not-an-email"})
    assert post_customer(api, key, {"email": "not-an-email"}).headers.get("idempotent-replayed") == "true"


def test_not_found_outcome_is_replayed(api):
    key = new_key()
    first = api.post("/v1/customers/cus_000000000000000000000000", json={"name": "X"},
                     headers={"Idempotency-Key": key})
    fails(first, 404, "customer_not_found")
    created = ok(post_customer(api, None))
    assert created["id"]  # the world changed in between; the stored outcome still answers
    second = api.post("/v1/customers/cus_000000000000000000000000", json={"name": "X"},
                      headers={"Idempotency-Key": key})
    assert second.status_code == 404 and second.content == first.content


def test_key_used_for_an_error_cannot_be_reused_with_a_different_body(api):
    key = new_key()
    post_customer(api, key, {"email": "not-an-email"})
    fails(post_customer(api, key, {"email": "ann@example.com"}), 400, "idempotency_key_reused")


# ---------------------------------------------------------------- the key itself


def test_empty_key_is_parameter_invalid(api):
    fails(post_customer(api, ""), 400, "parameter_invalid", field="Idempotency-Key")


def test_overlong_key_is_parameter_invalid(api):
    fails(post_customer(api, "k" * 256), 400, "parameter_invalid", field="Idempotency-Key")


def test_non_ascii_key_is_parameter_invalid(api):
    response = api.post("/v1/customers", json={"name": "Ann"},
                        headers={"Idempotency-Key": "clé-1".encode("latin-1")})
    fails(response, 400, "parameter_invalid", field="Idempotency-Key")


def test_key_on_a_get_is_ignored(api):
    headers = {"Idempotency-Key": new_key()}
    ok(post_customer(api, None))
    first = api.get("/v1/customers", headers=headers)
    ok(post_customer(api, None))
    second = api.get("/v1/customers", headers=headers)
    assert ok(first)["total"] == 1 and ok(second)["total"] == 2
    assert "idempotent-replayed" not in second.headers
