"""Ephemeral tokens and identity resolution over HTTP.

`POST /v1/customers/ephemeral_tokens` issues a short-lived `eph_` token; `POST /v1/customers/identities/resolve`
turns exactly one method (`ephemeral_token`, `auth_token`, or `email`/`phone` + `verification_code`) into the
customer's identity. The spec sends the method inside `request`, a JSON object string; the same fields directly in
the body are accepted too (DESIGN.md §2).
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from server.customers.models import EphemeralToken
from server.db import Database
from server.ids import digest
from tests.conftest import basic, fails, ok
from tests.harness import TLS, Service
from tests.mail import Mailbox, sms_address

RESOLVED_FIELDS = {"customer_id", "provider_a_customer_id", "email", "phone", "uuid", "addresses", "tax_regions",
                   "auth_token", "issued_by", "provider", "order_id", "is_saved_customer", "provider_b_customer_id",
                   "return_url"}
TOKEN_BODY = {"idp_key": "email", "idp_subject": "ann@example.com", "provider": "telegram", "order_id": "order-17",
              "return_url": "https://shop.example.com/thanks?o=17", "allow_create": True, "issued_by": "support-bot",
              "channel_metadata": {"chat_id": 4242, "thread": "t-1"}}
WRONG_KEY = "sk_test_" + "0" * 24
UNKNOWN_TOKEN = "eph_" + "0" * 32


def issue_token(client: httpx.Client, **fields: Any) -> str:
    return ok(client.post("/v1/customers/ephemeral_tokens", json=fields))["token"]  # type: ignore[no-any-return]


def resolve(client: httpx.Client, **fields: Any) -> httpx.Response:
    """The spec's form: the method inside `request`, a JSON object string."""
    return client.post("/v1/customers/identities/resolve", json={"request": json.dumps(fields)})


def resolve_direct(client: httpx.Client, **fields: Any) -> httpx.Response:
    """The SDKs' form: the same fields directly in the body."""
    return client.post("/v1/customers/identities/resolve", json=fields)


def create_customer(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    return ok(client.post("/v1/customers", json=fields))  # type: ignore[no-any-return]


def create_payment_link(client: httpx.Client) -> str:
    product = ok(client.post("/v1/products", json={"name": "Coffee", "default_currency": "USD",
                                                   "fixed_price": {"amount": "9.50"}}))
    variant_id = product["variants"][0]["id"]
    link = ok(client.post("/v1/payment_links", json={"product_id": product["id"], "default_variant_id": variant_id,
                                                     "primary_variant_ids": [variant_id]}))
    return link["id"]  # type: ignore[no-any-return]


def _run_in_db(service: Service, work: Any) -> Any:
    async def run() -> Any:
        db = Database(service.database_url)
        try:
            async with db.transaction() as session:
                return await work(session)
        finally:
            await db.close()

    return asyncio.run(run())


def issue_code(service: Service, mailbox: Mailbox, merchant: dict[str, Any], subject: str) -> str:
    """A one-time code as a shopper gets it: asked for on the merchant's payment link through the checkout call,
    read from the e-mail the SMTP server received."""
    return _code_through_checkout(service, mailbox, merchant, {"email": subject}, subject.lower())


def texted_code(service: Service, mailbox: Mailbox, merchant: dict[str, Any], phone: str) -> str:
    """A phone code as a shopper gets it: asked for through the same checkout call with `phone`, delivered as mail
    to the e-mail-to-SMS gateway (the test service's PAYGATE_SMS_EMAIL_GATEWAY) and read from the SMTP server."""
    return _code_through_checkout(service, mailbox, merchant, {"phone": phone}, sms_address(phone))


def _code_through_checkout(service: Service, mailbox: Mailbox, merchant: dict[str, Any], who: dict[str, str],
                           mailed_to: str) -> str:
    with httpx.Client(base_url=service.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as shop:
        link_id = create_payment_link(shop)
    since = mailbox.mark()
    with httpx.Client(base_url=service.http_url, timeout=30, verify=TLS) as page:
        ok(page.post("/checkout/verification_codes", json={
            "key": merchant["test"]["public_key"], "payment_link_id": link_id, **who}))
    return mailbox.code_for(mailed_to, since)


def other_code(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


# ---------------------------------------------------------------- ephemeral tokens


def test_create_ephemeral_token_with_all_fields(api):
    now = int(time.time())
    data = ok(api.post("/v1/customers/ephemeral_tokens", json=TOKEN_BODY))
    assert set(data) == {"token", "expires_at"}
    assert data["token"].startswith("eph_") and len(data["token"]) > len("eph_") + 16
    assert isinstance(data["expires_at"], int) and not isinstance(data["expires_at"], bool)
    assert now + 5 * 60 <= data["expires_at"] <= int(time.time()) + 15 * 60
    assert abs(data["expires_at"] - (now + 900)) <= 5


def test_create_ephemeral_token_with_no_fields_is_anonymous(api):
    data = ok(api.post("/v1/customers/ephemeral_tokens", json={}))
    assert data["token"].startswith("eph_")
    assert ok(resolve(api, ephemeral_token=data["token"]))["customer_id"] == ""


def test_ephemeral_tokens_are_unique(api):
    assert issue_token(api, **TOKEN_BODY) != issue_token(api, **TOKEN_BODY)


def test_ephemeral_token_lifetime_follows_expires_in(api):
    now = int(time.time())
    data = ok(api.post("/v1/customers/ephemeral_tokens", json={"expires_in": 300}))
    assert abs(data["expires_at"] - (now + 300)) <= 5


@pytest.mark.parametrize("expires_in", [0, 299, 901, -1])
def test_ephemeral_token_rejects_expires_in_out_of_range(api, expires_in):
    fails(api.post("/v1/customers/ephemeral_tokens", json={"expires_in": expires_in}), 400, "parameter_invalid",
          "expires_in")


def test_ephemeral_token_rejects_a_bad_idp_key(api):
    body = {**TOKEN_BODY, "idp_key": "passport"}
    fails(api.post("/v1/customers/ephemeral_tokens", json=body), 400, "parameter_invalid", "idp_key")


def test_ephemeral_token_rejects_an_idp_subject_that_is_not_an_email(api):
    body = {**TOKEN_BODY, "idp_subject": "not-an-email"}
    fails(api.post("/v1/customers/ephemeral_tokens", json=body), 400, "parameter_invalid", "idp_subject")


def test_ephemeral_token_rejects_an_idp_subject_that_is_not_a_phone(api):
    body = {**TOKEN_BODY, "idp_key": "phone", "idp_subject": "call me"}
    fails(api.post("/v1/customers/ephemeral_tokens", json=body), 400, "parameter_invalid", "idp_subject")


@pytest.mark.parametrize("return_url", ["not a url", "ftp://shop.example.com/", "javascript:alert(1)", "https://"])
def test_ephemeral_token_rejects_a_bad_return_url(api, return_url):
    body = {**TOKEN_BODY, "return_url": return_url}
    fails(api.post("/v1/customers/ephemeral_tokens", json=body), 400, "parameter_invalid", "return_url")


def test_ephemeral_token_rejects_channel_metadata_that_is_not_an_object(api):
    body = {**TOKEN_BODY, "channel_metadata": "chat 4242"}
    fails(api.post("/v1/customers/ephemeral_tokens", json=body), 400, "parameter_invalid", "channel_metadata")


def test_ephemeral_token_rejects_allow_create_that_is_not_a_boolean(api):
    body = {**TOKEN_BODY, "allow_create": "no"}
    fails(api.post("/v1/customers/ephemeral_tokens", json=body), 400, "parameter_invalid", "allow_create")


def test_ephemeral_token_without_allow_create_for_an_unknown_customer_is_not_found(api):
    body = {**TOKEN_BODY, "idp_subject": "nobody@example.com", "allow_create": False}
    fails(api.post("/v1/customers/ephemeral_tokens", json=body), 404, "customer_not_found")


def test_ephemeral_token_without_allow_create_for_a_known_customer_resolves_to_it(api):
    existing = create_customer(api, name="Ann", email="ann@example.com")
    token = issue_token(api, **{**TOKEN_BODY, "allow_create": False})
    assert ok(resolve(api, ephemeral_token=token))["customer_id"] == existing["id"]


def test_ephemeral_token_without_allow_create_ignores_another_merchants_customer(api, other_api):
    create_customer(other_api, name="Theirs", email="ann@example.com")
    fails(api.post("/v1/customers/ephemeral_tokens", json={**TOKEN_BODY, "allow_create": False}), 404,
          "customer_not_found")


def test_ephemeral_token_treats_null_as_not_given(api):
    token = issue_token(api, idp_key=None, idp_subject=None, provider=None, order_id="order-9", allow_create=None,
                        expires_in=None, channel_metadata=None)
    resolved = ok(resolve(api, ephemeral_token=token))
    assert resolved["customer_id"] == "" and resolved["order_id"] == "order-9"


def test_ephemeral_token_without_a_key_is_unauthorized(anonymous):
    response = anonymous.post("/v1/customers/ephemeral_tokens", json=TOKEN_BODY)
    fails(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Basic")


def test_ephemeral_token_with_a_wrong_key_is_unauthorized(anonymous):
    response = anonymous.post("/v1/customers/ephemeral_tokens", json=TOKEN_BODY,
                              headers={"Authorization": basic(WRONG_KEY)})
    fails(response, 401, "unauthorized")


# ---------------------------------------------------------------- resolve an ephemeral token


def test_resolve_ephemeral_token_in_a_request_string(api):
    token = issue_token(api, **TOKEN_BODY)
    resolved = ok(resolve(api, ephemeral_token=token))
    assert set(resolved) == RESOLVED_FIELDS
    assert resolved["customer_id"].startswith("cus_") and resolved["email"] == "ann@example.com"


def test_resolve_ephemeral_token_given_directly_in_the_body(api):
    token = issue_token(api, **TOKEN_BODY)
    resolved = ok(resolve_direct(api, ephemeral_token=token))
    assert set(resolved) == RESOLVED_FIELDS
    assert resolved["customer_id"].startswith("cus_") and resolved["email"] == "ann@example.com"


def test_resolve_ephemeral_token_creates_the_customer(api):
    token = issue_token(api, **TOKEN_BODY)
    resolved = ok(resolve(api, ephemeral_token=token))
    customer = ok(api.get(f"/v1/customers/{resolved['customer_id']}"))
    assert customer["email"] == "ann@example.com"
    assert ok(api.get("/v1/customers"))["total"] == 1


def test_resolve_ephemeral_token_reuses_the_customer_with_that_email(api):
    existing = create_customer(api, name="Ann", email="ann@example.com")
    token = issue_token(api, **TOKEN_BODY)
    assert ok(resolve(api, ephemeral_token=token))["customer_id"] == existing["id"]
    assert ok(api.get("/v1/customers"))["total"] == 1


def test_resolve_ephemeral_token_reuses_the_customer_whatever_the_email_case(api):
    existing = create_customer(api, name="Ann", email="Ann@Example.com")
    token = issue_token(api, **{**TOKEN_BODY, "idp_subject": "ANN@example.COM"})
    assert ok(resolve(api, ephemeral_token=token))["customer_id"] == existing["id"]
    assert ok(api.get("/v1/customers"))["total"] == 1


def test_resolve_the_same_ephemeral_token_twice_is_token_expired(api):
    # Ephemeral tokens are single-use (was: the second resolution answered the same customer again).
    token = issue_token(api, **TOKEN_BODY)
    assert ok(resolve(api, ephemeral_token=token))["customer_id"].startswith("cus_")
    fails(resolve(api, ephemeral_token=token), 400, "token_expired", "ephemeral_token")
    assert ok(api.get("/v1/customers"))["total"] == 1


def test_resolve_ephemeral_token_does_not_reuse_another_merchants_customer(api, other_api):
    theirs = create_customer(other_api, name="Theirs", email="ann@example.com")
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY)))
    assert resolved["customer_id"].startswith("cus_") and resolved["customer_id"] != theirs["id"]


def test_resolve_ephemeral_token_does_not_reuse_a_deleted_customer(api):
    gone = create_customer(api, name="Ann", email="ann@example.com")
    ok(api.delete(f"/v1/customers/{gone['id']}"))
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY)))
    assert resolved["customer_id"].startswith("cus_") and resolved["customer_id"] != gone["id"]


@pytest.mark.parametrize(("idp_key", "subject"), [("email", "bo@example.com"), ("phone", "+4712345678"),
                                                  ("uuid", "user-42")])
def test_resolve_ephemeral_token_identifies_the_customer_by_its_idp_key(api, idp_key, subject):
    token = issue_token(api, idp_key=idp_key, idp_subject=subject, provider="telegram")
    resolved = ok(resolve(api, ephemeral_token=token))
    assert resolved["customer_id"].startswith("cus_") and resolved[idp_key] == subject
    assert ok(api.get(f"/v1/customers/{resolved['customer_id']}"))[idp_key] == subject


def test_resolve_ephemeral_token_carries_the_tokens_fields(api):
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY)))
    assert (resolved["issued_by"], resolved["provider"], resolved["order_id"], resolved["return_url"]) == (
        "support-bot", "telegram", "order-17", "https://shop.example.com/thanks?o=17")


def test_resolve_returns_addresses_and_tax_regions_as_arrays(api):
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY)))
    assert resolved["addresses"] == [] and resolved["tax_regions"] == []


def test_resolve_without_saved_provider_customer_is_not_a_saved_customer(api):
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY)))
    assert resolved["is_saved_customer"] is False
    assert resolved["provider_a_customer_id"] == "" and resolved["provider_b_customer_id"] == ""
    assert resolved["auth_token"] == ""


@pytest.mark.parametrize("missing", ["idp_key", "idp_subject", "provider"])
def test_resolve_anonymous_token_gives_no_customer_and_the_carried_fields(api, missing):
    body = {k: v for k, v in TOKEN_BODY.items() if k != missing}
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **body)))
    assert set(resolved) == RESOLVED_FIELDS
    assert resolved["customer_id"] == "" and resolved["email"] == ""
    assert resolved["addresses"] == [] and resolved["tax_regions"] == []
    assert (resolved["issued_by"], resolved["order_id"], resolved["return_url"]) == (
        "support-bot", "order-17", "https://shop.example.com/thanks?o=17")
    assert resolved["provider"] == body.get("provider", "")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_resolve_anonymous_token_with_refresh_token_is_invalid(api):
    token = issue_token(api, order_id="order-1")
    fails(resolve(api, ephemeral_token=token, refresh_token=True), 400, "parameter_invalid", "refresh_token")


def test_resolve_with_allow_create_false_for_an_unknown_customer_is_not_found(api):
    token = issue_token(api, **TOKEN_BODY)
    fails(resolve(api, ephemeral_token=token, allow_create=False), 404, "customer_not_found")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_resolve_unknown_ephemeral_token_is_invalid(api):
    fails(resolve(api, ephemeral_token=UNKNOWN_TOKEN), 400, "parameter_invalid", "ephemeral_token")


def test_resolve_another_merchants_ephemeral_token_is_invalid_like_an_unknown_one(api, other_api):
    theirs = issue_token(other_api, **TOKEN_BODY)
    foreign = fails(resolve(api, ephemeral_token=theirs), 400, "parameter_invalid", "ephemeral_token")
    unknown = fails(resolve(api, ephemeral_token=UNKNOWN_TOKEN), 400, "parameter_invalid", "ephemeral_token")
    assert foreign["msg"] == unknown["msg"]
    assert ok(other_api.get("/v1/customers"))["total"] == 0 and ok(api.get("/v1/customers"))["total"] == 0


def test_resolve_test_mode_ephemeral_token_with_the_live_key_is_invalid(api, live_api):
    token = issue_token(api, **TOKEN_BODY)
    fails(resolve(live_api, ephemeral_token=token), 400, "parameter_invalid", "ephemeral_token")


def test_resolve_expired_ephemeral_token_is_refused(service, merchant, api):
    token = "eph_" + "e" * 32
    now = int(time.time())

    async def insert(session: Any) -> None:
        session.add(EphemeralToken(token_hash=digest(token), merchant_id=merchant["merchant_id"], livemode=False,
                                   idp_key="email", idp_subject="ann@example.com", provider="telegram",
                                   created=now - 1000, expires_at=now - 100))

    _run_in_db(service, insert)
    fails(resolve(api, ephemeral_token=token), 400, "token_expired", "ephemeral_token")
    assert ok(api.get("/v1/customers"))["total"] == 0


# ---------------------------------------------------------------- auth tokens


def test_resolve_with_refresh_token_returns_an_auth_token(api):
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY), refresh_token=True))
    assert isinstance(resolved["auth_token"], str) and len(resolved["auth_token"]) > 16


def test_auth_token_resolves_to_the_same_customer(api):
    first = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY), refresh_token=True))
    again = ok(resolve(api, auth_token=first["auth_token"]))
    assert again["customer_id"] == first["customer_id"] and again["email"] == "ann@example.com"
    assert again["auth_token"] == ""


def test_auth_token_given_directly_in_the_body_resolves(api):
    first = ok(resolve_direct(api, ephemeral_token=issue_token(api, **TOKEN_BODY), refresh_token=True))
    assert ok(resolve_direct(api, auth_token=first["auth_token"]))["customer_id"] == first["customer_id"]


def test_auth_token_with_refresh_token_returns_a_new_auth_token(api):
    first = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY), refresh_token=True))
    second = ok(resolve(api, auth_token=first["auth_token"], refresh_token=True))
    assert second["auth_token"] and second["auth_token"] != first["auth_token"]
    assert ok(resolve(api, auth_token=second["auth_token"]))["customer_id"] == first["customer_id"]


def test_resolve_unknown_auth_token_is_invalid(api):
    fails(resolve(api, auth_token="cat_" + "0" * 32), 400, "parameter_invalid", "auth_token")


def test_resolve_another_merchants_auth_token_is_invalid(api, other_api):
    theirs = ok(resolve(other_api, ephemeral_token=issue_token(other_api, **TOKEN_BODY), refresh_token=True))
    body = fails(resolve(api, auth_token=theirs["auth_token"]), 400, "parameter_invalid", "auth_token")
    assert theirs["customer_id"] not in body["msg"]


# ---------------------------------------------------------------- the request itself


def test_resolve_without_a_method_is_missing(api):
    fails(resolve(api), 400, "parameter_missing")


def test_resolve_with_an_empty_body_is_missing(api):
    fails(api.post("/v1/customers/identities/resolve", json={}), 400, "parameter_missing")


def test_resolve_with_two_methods_is_invalid(api):
    token = issue_token(api, **TOKEN_BODY)
    auth = ok(resolve(api, ephemeral_token=token, refresh_token=True))["auth_token"]
    fails(resolve(api, ephemeral_token=token, auth_token=auth), 400, "parameter_invalid")


def test_resolve_with_one_method_in_request_and_another_in_the_body_is_invalid(api):
    token = issue_token(api, **TOKEN_BODY)
    auth = ok(resolve(api, ephemeral_token=token, refresh_token=True))["auth_token"]
    response = api.post("/v1/customers/identities/resolve",
                        json={"request": json.dumps({"ephemeral_token": token}), "auth_token": auth})
    fails(response, 400, "parameter_invalid")


def test_resolve_with_a_token_and_a_verification_code_is_invalid(api):
    token = issue_token(api, **TOKEN_BODY)
    fails(resolve(api, ephemeral_token=token, email="ann@example.com", verification_code="123456"), 400,
          "parameter_invalid")


@pytest.mark.parametrize("request_text", ["not json", "{\"ephemeral_token\": ", "[\"eph_x\"]", "42", "\"eph_x\""])
def test_resolve_request_that_is_not_a_json_object_is_invalid(api, request_text):
    response = api.post("/v1/customers/identities/resolve", json={"request": request_text})
    fails(response, 400, "parameter_invalid", "request")


def test_resolve_request_field_of_the_wrong_type_is_invalid(api):
    token = issue_token(api, **TOKEN_BODY)
    fails(resolve(api, ephemeral_token=token, refresh_token="yes"), 400, "parameter_invalid",
          "request.refresh_token")


def test_resolve_request_that_is_not_a_string_is_invalid(api):
    token = issue_token(api, **TOKEN_BODY)
    response = api.post("/v1/customers/identities/resolve", json={"request": {"ephemeral_token": token}})
    fails(response, 400, "parameter_invalid", "request")


def test_resolve_with_own_payment_link(api):
    link_id = create_payment_link(api)
    resolved = ok(resolve(api, ephemeral_token=issue_token(api, **TOKEN_BODY), payment_link_id=link_id))
    assert resolved["customer_id"].startswith("cus_")


def test_resolve_with_another_merchants_payment_link_is_invalid_like_an_unknown_one(api, other_api):
    theirs = create_payment_link(other_api)
    token = issue_token(api, **TOKEN_BODY)
    foreign = fails(resolve(api, ephemeral_token=token, payment_link_id=theirs), 400, "parameter_invalid",
                    "payment_link_id")
    unknown = fails(resolve(api, ephemeral_token=token, payment_link_id="pl_000000000000000000000000"), 400,
                    "parameter_invalid", "payment_link_id")
    assert foreign["msg"] == unknown["msg"]
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_resolve_without_a_key_is_unauthorized(anonymous):
    response = resolve(anonymous, ephemeral_token=UNKNOWN_TOKEN)
    fails(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Basic")


def test_resolve_with_a_wrong_key_is_unauthorized(anonymous):
    response = anonymous.post("/v1/customers/identities/resolve", headers={"Authorization": basic(WRONG_KEY)},
                              json={"request": json.dumps({"ephemeral_token": UNKNOWN_TOKEN})})
    fails(response, 401, "unauthorized")


# ---------------------------------------------------------------- one-time verification codes


def test_resolve_email_with_the_right_code_creates_the_customer(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    resolved = ok(resolve(api, email="ann@example.com", verification_code=code))
    assert set(resolved) == RESOLVED_FIELDS
    assert resolved["customer_id"].startswith("cus_") and resolved["email"] == "ann@example.com"
    assert ok(api.get(f"/v1/customers/{resolved['customer_id']}"))["email"] == "ann@example.com"


def test_resolve_email_with_the_right_code_given_directly_in_the_body(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    resolved = ok(resolve_direct(api, email="ann@example.com", verification_code=code))
    assert resolved["customer_id"].startswith("cus_") and resolved["email"] == "ann@example.com"


def test_resolve_email_with_the_right_code_reuses_the_customer(service, mailbox, merchant, api):
    existing = create_customer(api, name="Ann", email="ann@example.com")
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    assert ok(resolve(api, email="ann@example.com", verification_code=code))["customer_id"] == existing["id"]


def test_resolve_phone_with_the_right_code_creates_the_customer(service, mailbox, merchant, api):
    code = texted_code(service, mailbox, merchant, "+4712345678")
    resolved = ok(resolve(api, phone="+4712345678", verification_code=code))
    assert resolved["customer_id"].startswith("cus_") and resolved["phone"] == "+4712345678"


def test_resolve_email_with_a_wrong_code_is_refused(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    fails(resolve(api, email="ann@example.com", verification_code=other_code(code)), 400,
          "verification_code_invalid", "verification_code")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_resolve_email_without_any_code_issued_is_refused(api):
    fails(resolve(api, email="ann@example.com", verification_code="123456"), 400, "verification_code_invalid",
          "verification_code")


def test_verification_code_works_once(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    ok(resolve(api, email="ann@example.com", verification_code=code))
    fails(resolve(api, email="ann@example.com", verification_code=code), 400, "verification_code_invalid",
          "verification_code")


def test_verification_code_is_locked_after_five_wrong_attempts(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    for _ in range(5):
        fails(resolve(api, email="ann@example.com", verification_code=other_code(code)), 400,
              "verification_code_invalid", "verification_code")
    fails(resolve(api, email="ann@example.com", verification_code=code), 400, "verification_code_invalid",
          "verification_code")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_verification_code_survives_four_wrong_attempts(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    for _ in range(4):
        fails(resolve(api, email="ann@example.com", verification_code=other_code(code)), 400,
              "verification_code_invalid", "verification_code")
    assert ok(resolve(api, email="ann@example.com", verification_code=code))["customer_id"].startswith("cus_")


def test_verification_code_is_locked_after_five_wrong_attempts_sent_at_once(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    wrong = other_code(code)
    with ThreadPoolExecutor(max_workers=10) as pool:
        responses = list(pool.map(lambda _: resolve(api, email="ann@example.com", verification_code=wrong),
                                  range(10)))
    for response in responses:
        fails(response, 400, "verification_code_invalid", "verification_code")
    fails(resolve(api, email="ann@example.com", verification_code=code), 400, "verification_code_invalid",
          "verification_code")


def test_verification_code_works_once_when_used_twice_at_once(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    with ThreadPoolExecutor(max_workers=4) as pool:
        responses = list(pool.map(lambda _: resolve(api, email="ann@example.com", verification_code=code), range(4)))
    assert sorted(r.status_code for r in responses) == [200, 400, 400, 400], [r.json() for r in responses]
    assert ok(api.get("/v1/customers"))["total"] == 1


def test_verification_code_matches_the_email_whatever_its_case(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "Ann@Example.com")
    resolved = ok(resolve(api, email="ann@EXAMPLE.com", verification_code=code))
    assert resolved["email"] == "ann@example.com"


def test_verification_code_of_another_merchant_is_refused(service, mailbox, other_merchant, api):
    code = issue_code(service, mailbox, other_merchant, "ann@example.com")
    fails(resolve(api, email="ann@example.com", verification_code=code), 400, "verification_code_invalid",
          "verification_code")


def test_verification_code_for_another_email_is_refused(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    fails(resolve(api, email="bob@example.com", verification_code=code), 400, "verification_code_invalid",
          "verification_code")


def test_verification_code_with_refresh_token_returns_an_auth_token_for_the_customer(service, mailbox, merchant, api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    resolved = ok(resolve(api, email="ann@example.com", verification_code=code, refresh_token=True))
    assert ok(resolve(api, auth_token=resolved["auth_token"]))["customer_id"] == resolved["customer_id"]


def test_verification_code_with_allow_create_false_for_an_unknown_customer_is_not_found(service, mailbox, merchant,
                                                                                        api):
    code = issue_code(service, mailbox, merchant, "ann@example.com")
    fails(resolve(api, email="ann@example.com", verification_code=code, allow_create=False), 404,
          "customer_not_found")
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_verification_code_without_email_or_phone_is_missing(api):
    fails(resolve(api, verification_code="123456"), 400, "parameter_missing", "email")


def test_email_without_verification_code_is_missing(api):
    fails(resolve(api, email="ann@example.com"), 400, "parameter_missing", "verification_code")


def test_verification_code_with_a_bad_email_is_invalid(api):
    fails(resolve(api, email="ann@", verification_code="123456"), 400, "parameter_invalid", "email")


def test_resolving_one_new_email_at_once_creates_one_customer(api):
    tokens = [issue_token(api, **TOKEN_BODY) for _ in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(lambda t: resolve(api, ephemeral_token=t), tokens))
    ids = {ok(r)["customer_id"] for r in responses}
    assert len(ids) == 1
    assert ok(api.get("/v1/customers"))["total"] == 1
