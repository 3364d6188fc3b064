"""Customers over HTTP: create, list, retrieve, update, delete, and a customer's saved payment methods.

Each test reads like a sentence of the spec (Customers endpoints, Customer resource, Authentication, Limits)
or of DESIGN.md (§2 wire rules and error table, §3 modes, §11, §12 SDK compatibility).
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.conftest import basic, fails, ok
from tests.harness import TLS

CUSTOMER_FIELDS = {"id", "object", "name", "email", "description", "metadata", "created", "updated", "phone",
                   "total_expense", "total_payment", "total_refund", "currency", "uuid"}
METADATA = {"plan": "gold", "seats": 3, "vip": True, "ratio": 0.5, "tags": ["a", "b"], "address": {"city": "Oslo"}}
UNKNOWN_ID = "cus_000000000000000000000000"
WRONG_KEY = "sk_test_" + "0" * 24

# Every customers endpoint that needs the secret key, with a body where it takes one.
SECRET_KEY_ENDPOINTS = [
    ("POST", "/v1/customers", {"name": "Ann"}),
    ("GET", "/v1/customers", None),
    ("GET", f"/v1/customers/{UNKNOWN_ID}", None),
    ("POST", f"/v1/customers/{UNKNOWN_ID}", {"name": "Ann"}),
    ("DELETE", f"/v1/customers/{UNKNOWN_ID}", None),
    ("GET", f"/v1/customers/payment_methods?customer_id={UNKNOWN_ID}", None),
]
ENDPOINT_IDS = [f"{verb} {path.split('?')[0]}" for verb, path, _ in SECRET_KEY_ENDPOINTS]


def create_customer(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    return ok(client.post("/v1/customers", json=fields))  # type: ignore[no-any-return]


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def listed_ids(data: dict[str, Any]) -> list[str]:
    return [c["id"] for c in data["customers"]]


# ---------------------------------------------------------------- create


def test_create_customer_returns_the_customer(api):
    before = int(time.time())
    created = create_customer(api, name="Ann Lee", email="ann@example.com", description="VIP", metadata=METADATA)
    assert set(created) == CUSTOMER_FIELDS
    assert created["id"].startswith("cus_") and len(created["id"]) == len("cus_") + 24
    assert created["object"] == "customer"
    assert (created["name"], created["email"], created["description"]) == ("Ann Lee", "ann@example.com", "VIP")
    assert is_int(created["created"]) and before - 1 <= created["created"] <= int(time.time()) + 1


def test_create_customer_round_trips_metadata(api):
    created = create_customer(api, metadata=METADATA)
    assert created["metadata"] == METADATA
    assert ok(api.get(f"/v1/customers/{created['id']}"))["metadata"] == METADATA


def test_create_customer_with_no_fields(api):
    created = create_customer(api)
    assert created["id"].startswith("cus_")
    assert (created["name"], created["email"], created["description"], created["metadata"]) == ("", "", "", {})


def test_create_customer_treats_null_as_not_given(api):
    created = create_customer(api, name=None, email=None, description=None, metadata=None)
    assert (created["name"], created["email"], created["description"], created["metadata"]) == ("", "", "", {})


def test_create_customer_rejects_a_bad_email(api):
    fails(api.post("/v1/customers", json={"email": "not-an-email"}), 400, "parameter_invalid", "email")


def test_create_customer_rejects_metadata_that_is_not_an_object(api):
    fails(api.post("/v1/customers", json={"metadata": "gold"}), 400, "parameter_invalid", "metadata")


def test_create_customer_rejects_metadata_with_too_many_keys(api):
    metadata = {f"k{i}": "v" for i in range(51)}
    fails(api.post("/v1/customers", json={"metadata": metadata}), 400, "parameter_invalid", "metadata")


def test_create_customer_rejects_a_name_of_the_wrong_type(api):
    fails(api.post("/v1/customers", json={"name": 42}), 400, "parameter_invalid", "name")


def test_create_customer_rejects_a_body_that_is_not_json(api):
    response = api.post("/v1/customers", content=b"{name", headers={"Content-Type": "application/json"})
    fails(response, 400, "parameter_invalid", "body")


# ---------------------------------------------------------------- retrieve


def test_retrieve_customer_returns_totals_currency_and_phone(api):
    created = create_customer(api, name="Ann", email="ann@example.com", phone="+15551234567", metadata={"k": "v"})
    got = ok(api.get(f"/v1/customers/{created['id']}"))
    assert set(got) == CUSTOMER_FIELDS
    assert got["id"] == created["id"] and got["object"] == "customer"
    assert got["phone"] == "+15551234567"
    assert (got["name"], got["email"], got["metadata"], got["created"]) == ("Ann", "ann@example.com", {"k": "v"},
                                                                            created["created"])
    assert isinstance(got["currency"], str)


def test_retrieve_customer_totals_are_json_numbers(api):
    created = create_customer(api, name="Ann")
    response = api.get(f"/v1/customers/{created['id']}")
    got = ok(response)
    for name in ("total_expense", "total_payment", "total_refund"):
        assert is_number(got[name]) and got[name] == 0, (name, got[name])
        assert f'"{name}":0' in response.text  # a number on the wire, not the string "0"


def test_retrieve_unknown_customer_is_not_found(api):
    fails(api.get(f"/v1/customers/{UNKNOWN_ID}"), 404, "customer_not_found")


def test_retrieve_another_merchants_customer_is_not_found(api, other_api):
    theirs = create_customer(other_api, name="Theirs", email="theirs@example.com")
    body = fails(api.get(f"/v1/customers/{theirs['id']}"), 404, "customer_not_found")
    assert "theirs@example.com" not in body["msg"]


def test_retrieve_test_mode_customer_with_the_live_key_is_not_found(api, live_api):
    test_customer = create_customer(api, name="Test mode")
    fails(live_api.get(f"/v1/customers/{test_customer['id']}"), 404, "customer_not_found")


def test_retrieve_live_customer_with_the_test_key_is_forbidden(api, live_api):
    # DESIGN §2: 403 forbidden is "a valid credential used where it is not allowed (… test key on a live object)".
    live_customer = create_customer(live_api, name="Live mode")
    fails(api.get(f"/v1/customers/{live_customer['id']}"), 403, "forbidden")


def test_retrieve_another_merchants_live_customer_with_the_test_key_is_not_found(api, service, other_merchant):
    with httpx.Client(base_url=service.http_url, auth=(other_merchant["live"]["secret_key"], ""),
                      verify=TLS) as their_live:
        theirs = create_customer(their_live, name="Their live customer")
    fails(api.get(f"/v1/customers/{theirs['id']}"), 404, "customer_not_found")


def test_retrieve_with_json_content_type_and_no_body_is_fine(api):
    created = create_customer(api, name="Ann")
    got = ok(api.get(f"/v1/customers/{created['id']}", headers={"Content-Type": "application/json"}))
    assert got["id"] == created["id"]


# ---------------------------------------------------------------- update


def test_update_customer_sets_updated(api):
    created = create_customer(api, name="Ann")
    time.sleep(1.1)  # timestamps are whole seconds: let one pass so that `updated` must move
    before = int(time.time())
    updated = ok(api.post(f"/v1/customers/{created['id']}", json={"name": "Ann Lee"}))
    assert set(updated) == CUSTOMER_FIELDS
    assert updated["id"] == created["id"] and updated["object"] == "customer"
    assert updated["name"] == "Ann Lee"
    assert is_int(updated["updated"]) and updated["updated"] >= before and updated["updated"] > created["created"]
    assert updated["created"] == created["created"]


def test_update_customer_keeps_the_fields_not_given(api):
    created = create_customer(api, name="Ann", email="ann@example.com", description="first", metadata={"k": "v"})
    ok(api.post(f"/v1/customers/{created['id']}", json={"description": "second"}))
    got = ok(api.get(f"/v1/customers/{created['id']}"))
    assert (got["name"], got["email"], got["description"], got["metadata"]) == (
        "Ann", "ann@example.com", "second", {"k": "v"})


def test_update_customer_treats_null_as_not_given(api):
    created = create_customer(api, name="Ann", email="ann@example.com", description="d", metadata={"k": "v"})
    updated = ok(api.post(f"/v1/customers/{created['id']}",
                          json={"name": None, "email": "new@example.com", "description": None, "metadata": None}))
    assert (updated["name"], updated["email"], updated["description"], updated["metadata"]) == (
        "Ann", "new@example.com", "d", {"k": "v"})


def test_update_customer_replaces_the_metadata(api):
    created = create_customer(api, metadata={"old": "1", "keep": "no"})
    updated = ok(api.post(f"/v1/customers/{created['id']}", json={"metadata": {"new": 2}}))
    assert updated["metadata"] == {"new": 2}
    assert ok(api.get(f"/v1/customers/{created['id']}"))["metadata"] == {"new": 2}


def test_update_customer_rejects_a_bad_email(api):
    created = create_customer(api, email="ann@example.com")
    fails(api.post(f"/v1/customers/{created['id']}", json={"email": "ann@"}), 400, "parameter_invalid", "email")
    assert ok(api.get(f"/v1/customers/{created['id']}"))["email"] == "ann@example.com"


def test_update_customer_rejects_metadata_that_is_not_an_object(api):
    created = create_customer(api, name="Ann")
    fails(api.post(f"/v1/customers/{created['id']}", json={"metadata": "gold"}), 400, "parameter_invalid",
          "metadata")


def test_update_unknown_customer_is_not_found(api):
    fails(api.post(f"/v1/customers/{UNKNOWN_ID}", json={"name": "X"}), 404, "customer_not_found")


def test_update_another_merchants_customer_is_not_found(api, other_api):
    theirs = create_customer(other_api, name="Theirs")
    fails(api.post(f"/v1/customers/{theirs['id']}", json={"name": "Mine now"}), 404, "customer_not_found")
    assert ok(other_api.get(f"/v1/customers/{theirs['id']}"))["name"] == "Theirs"


def test_update_test_mode_customer_with_the_live_key_is_not_found(api, live_api):
    test_customer = create_customer(api, name="Test mode")
    fails(live_api.post(f"/v1/customers/{test_customer['id']}", json={"name": "X"}), 404, "customer_not_found")
    assert ok(api.get(f"/v1/customers/{test_customer['id']}"))["name"] == "Test mode"


def test_update_live_customer_with_the_test_key_is_forbidden(api, live_api):
    live_customer = create_customer(live_api, name="Live mode")
    fails(api.post(f"/v1/customers/{live_customer['id']}", json={"name": "X"}), 403, "forbidden")
    assert ok(live_api.get(f"/v1/customers/{live_customer['id']}"))["name"] == "Live mode"


# ---------------------------------------------------------------- delete


def test_delete_customer_returns_empty_data(api):
    created = create_customer(api, name="Ann")
    assert ok(api.delete(f"/v1/customers/{created['id']}")) == {}


def test_deleted_customer_is_not_found(api):
    created = create_customer(api, name="Ann")
    ok(api.delete(f"/v1/customers/{created['id']}"))
    fails(api.get(f"/v1/customers/{created['id']}"), 404, "customer_not_found")
    fails(api.post(f"/v1/customers/{created['id']}", json={"name": "Back"}), 404, "customer_not_found")
    fails(api.delete(f"/v1/customers/{created['id']}"), 404, "customer_not_found")


def test_delete_with_json_content_type_and_no_body_is_fine(api):
    created = create_customer(api, name="Ann")
    assert ok(api.delete(f"/v1/customers/{created['id']}", headers={"Content-Type": "application/json"})) == {}


def test_delete_unknown_customer_is_not_found(api):
    fails(api.delete(f"/v1/customers/{UNKNOWN_ID}"), 404, "customer_not_found")


def test_delete_another_merchants_customer_is_not_found(api, other_api):
    theirs = create_customer(other_api, name="Theirs")
    fails(api.delete(f"/v1/customers/{theirs['id']}"), 404, "customer_not_found")
    assert ok(other_api.get(f"/v1/customers/{theirs['id']}"))["id"] == theirs["id"]


def test_delete_test_mode_customer_with_the_live_key_is_not_found(api, live_api):
    test_customer = create_customer(api, name="Test mode")
    fails(live_api.delete(f"/v1/customers/{test_customer['id']}"), 404, "customer_not_found")
    assert ok(api.get(f"/v1/customers/{test_customer['id']}"))["id"] == test_customer["id"]


def test_delete_live_customer_with_the_test_key_is_forbidden(api, live_api):
    live_customer = create_customer(live_api, name="Live mode")
    fails(api.delete(f"/v1/customers/{live_customer['id']}"), 403, "forbidden")
    assert ok(live_api.get(f"/v1/customers/{live_customer['id']}"))["id"] == live_customer["id"]


# ---------------------------------------------------------------- list


def test_list_customers_returns_customers_total_page_and_page_size(api):
    created = create_customer(api, name="Ann", metadata={"k": "v"})
    data = ok(api.get("/v1/customers", params={"page": 0, "page_size": 5}))
    assert set(data) == {"customers", "total", "page", "page_size"}
    assert (data["total"], data["page"], data["page_size"]) == (1, 0, 5)
    assert all(is_int(data[k]) for k in ("total", "page", "page_size"))
    assert data["customers"] == [created]


def test_list_customers_is_newest_first(api):
    ids = [create_customer(api, name=f"c{i}")["id"] for i in range(5)]
    data = ok(api.get("/v1/customers", params={"page": 0, "page_size": 10}))
    assert listed_ids(data) == ids[::-1]


def test_list_customers_defaults_to_page_0_and_page_size_10(api):
    ids = {create_customer(api, name=f"c{i}")["id"] for i in range(11)}
    data = ok(api.get("/v1/customers"))
    assert (data["total"], data["page"], data["page_size"]) == (11, 0, 10)
    assert len(data["customers"]) == 10 and set(listed_ids(data)) <= ids


def test_list_customers_pages_through_all_customers(api):
    ids = {create_customer(api, name=f"c{i}")["id"] for i in range(5)}
    pages = [ok(api.get("/v1/customers", params={"page": p, "page_size": 2})) for p in range(3)]
    assert [len(p["customers"]) for p in pages] == [2, 2, 1]
    assert [(p["total"], p["page"], p["page_size"]) for p in pages] == [(5, 0, 2), (5, 1, 2), (5, 2, 2)]
    seen = [i for p in pages for i in listed_ids(p)]
    assert len(seen) == 5 and set(seen) == ids


def test_list_customers_page_beyond_the_end_is_empty(api):
    create_customer(api, name="Ann")
    data = ok(api.get("/v1/customers", params={"page": 5, "page_size": 10}))
    assert data["customers"] == [] and data["total"] == 1 and data["page"] == 5


def test_list_customers_with_no_customers_is_an_empty_array(api):
    data = ok(api.get("/v1/customers"))
    assert data["customers"] == [] and data["total"] == 0


def test_list_customers_accepts_page_size_1_and_100(api):
    create_customer(api, name="a")
    create_customer(api, name="b")
    assert len(ok(api.get("/v1/customers", params={"page_size": 1}))["customers"]) == 1
    assert ok(api.get("/v1/customers", params={"page_size": 100}))["page_size"] == 100


def test_list_customers_filters_by_email(api):
    first = create_customer(api, name="Ann", email="ann@example.com")
    create_customer(api, name="Bob", email="bob@example.com")
    second = create_customer(api, name="Ann again", email="ann@example.com")
    data = ok(api.get("/v1/customers", params={"email": "ann@example.com"}))
    assert data["total"] == 2
    assert set(listed_ids(data)) == {first["id"], second["id"]}


def test_list_customers_email_filter_without_match_is_empty(api):
    create_customer(api, name="Ann", email="ann@example.com")
    data = ok(api.get("/v1/customers", params={"email": "nobody@example.com"}))
    assert data["customers"] == [] and data["total"] == 0


def test_list_customers_excludes_deleted_customers(api):
    kept = create_customer(api, name="Kept")
    gone = create_customer(api, name="Gone")
    ok(api.delete(f"/v1/customers/{gone['id']}"))
    data = ok(api.get("/v1/customers"))
    assert listed_ids(data) == [kept["id"]] and data["total"] == 1


def test_list_customers_shows_only_the_callers_merchant(api, other_api):
    mine = create_customer(api, name="Mine")
    create_customer(other_api, name="Theirs")
    data = ok(api.get("/v1/customers"))
    assert listed_ids(data) == [mine["id"]] and data["total"] == 1


def test_list_customers_shows_only_the_keys_mode(api, live_api):
    test_customer = create_customer(api, name="Test mode")
    live_customer = create_customer(live_api, name="Live mode")
    assert listed_ids(ok(api.get("/v1/customers"))) == [test_customer["id"]]
    assert listed_ids(ok(live_api.get("/v1/customers"))) == [live_customer["id"]]


def test_list_customers_with_json_content_type_and_no_body_is_fine(api):
    create_customer(api, name="Ann")
    assert ok(api.get("/v1/customers", headers={"Content-Type": "application/json"}))["total"] == 1


@pytest.mark.parametrize(("params", "field"), [
    ({"page": -1}, "page"),
    ({"page": "x"}, "page"),
    ({"page_size": 0}, "page_size"),
    ({"page_size": 101}, "page_size"),
    ({"page_size": -5}, "page_size"),
    ({"page_size": "ten"}, "page_size"),
], ids=["page=-1", "page=x", "page_size=0", "page_size=101", "page_size=-5", "page_size=ten"])
def test_list_customers_rejects_an_invalid_page_or_page_size(api, params, field):
    fails(api.get("/v1/customers", params=params), 400, "parameter_invalid", field)


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize(("verb", "path", "body"), SECRET_KEY_ENDPOINTS, ids=ENDPOINT_IDS)
def test_customers_endpoint_without_a_key_is_unauthorized(anonymous, verb, path, body):
    response = anonymous.request(verb, path, json=body)
    fails(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Basic")


@pytest.mark.parametrize(("verb", "path", "body"), SECRET_KEY_ENDPOINTS, ids=ENDPOINT_IDS)
def test_customers_endpoint_with_a_wrong_key_is_unauthorized(anonymous, verb, path, body):
    response = anonymous.request(verb, path, json=body, headers={"Authorization": basic(WRONG_KEY)})
    fails(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Basic")


def test_customers_endpoint_with_a_public_key_is_forbidden(anonymous, merchant):
    response = anonymous.get("/v1/customers", headers={"Authorization": basic(merchant["test"]["public_key"])})
    fails(response, 403, "forbidden")


def test_create_customer_without_a_key_creates_nothing(api, anonymous):
    fails(anonymous.post("/v1/customers", json={"name": "Sneaky"}), 401, "unauthorized")
    assert ok(api.get("/v1/customers"))["total"] == 0


# ---------------------------------------------------------------- saved payment methods


def test_list_payment_methods_of_a_customer_without_saved_methods_is_empty(api):
    created = create_customer(api, name="Ann")
    data = ok(api.get("/v1/customers/payment_methods", params={"customer_id": created["id"]}))
    assert data == {"payment_methods": []}


def test_list_payment_methods_requires_customer_id(api):
    fails(api.get("/v1/customers/payment_methods"), 400, "parameter_missing", "customer_id")


def test_list_payment_methods_of_an_unknown_customer_is_invalid(api):
    fails(api.get("/v1/customers/payment_methods", params={"customer_id": UNKNOWN_ID}), 400, "parameter_invalid",
          "customer_id")


def test_list_payment_methods_of_another_merchants_customer_is_invalid_like_an_unknown_one(api, other_api):
    theirs = create_customer(other_api, name="Theirs")
    foreign = fails(api.get("/v1/customers/payment_methods", params={"customer_id": theirs["id"]}), 400,
                    "parameter_invalid", "customer_id")
    unknown = fails(api.get("/v1/customers/payment_methods", params={"customer_id": UNKNOWN_ID}), 400,
                    "parameter_invalid", "customer_id")
    assert foreign["msg"] == unknown["msg"]  # existence never leaks (DESIGN §11)


def test_list_payment_methods_of_a_test_mode_customer_with_the_live_key_is_invalid(api, live_api):
    test_customer = create_customer(api, name="Test mode")
    fails(live_api.get("/v1/customers/payment_methods", params={"customer_id": test_customer["id"]}), 400,
          "parameter_invalid", "customer_id")


def test_list_payment_methods_of_a_deleted_customer_is_invalid(api):
    created = create_customer(api, name="Ann")
    ok(api.delete(f"/v1/customers/{created['id']}"))
    fails(api.get("/v1/customers/payment_methods", params={"customer_id": created["id"]}), 400,
          "parameter_invalid", "customer_id")


def test_checkout_payment_methods_without_key_and_client_secret_is_unauthorized(api, anonymous):
    created = create_customer(api, name="Ann")
    response = anonymous.get("/customers/payment_methods/public/list", params={"customer_id": created["id"]})
    fails(response, 401, "unauthorized")


def test_checkout_payment_methods_with_no_query_at_all_is_unauthorized(anonymous):
    # DESIGN §11: a checkout call without key or client_secret gives 401, whatever else is missing.
    fails(anonymous.get("/customers/payment_methods/public/list"), 401, "unauthorized")


def test_checkout_payment_methods_without_client_secret_is_unauthorized(api, anonymous, merchant):
    created = create_customer(api, name="Ann")
    response = anonymous.get("/customers/payment_methods/public/list",
                             params={"customer_id": created["id"], "key": merchant["test"]["public_key"]})
    fails(response, 401, "unauthorized")


def test_checkout_payment_methods_with_an_unknown_client_secret_is_unauthorized(api, anonymous, merchant):
    created = create_customer(api, name="Ann")
    response = anonymous.get("/customers/payment_methods/public/list", params={
        "customer_id": created["id"], "key": merchant["test"]["public_key"],
        "client_secret": "pi_000000000000000000000000_secret_000000000000000000000000"})
    fails(response, 401, "unauthorized")


def test_checkout_payment_methods_with_a_secret_key_as_key_is_unauthorized(api, anonymous, merchant):
    created = create_customer(api, name="Ann")
    response = anonymous.get("/customers/payment_methods/public/list", params={
        "customer_id": created["id"], "key": merchant["test"]["secret_key"],
        "client_secret": "pi_000000000000000000000000_secret_000000000000000000000000"})
    fails(response, 401, "unauthorized")
