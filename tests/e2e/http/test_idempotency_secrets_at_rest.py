"""The answer kept for an Idempotency-Key is sealed at rest (DESIGN §2, §14): the stored response of a webhook
endpoint's creation holds no `whsec_` signing secret, a payment intent's no client secret; a replay with the same
key still answers exactly the first answer."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from tests.conftest import ok
from tests.harness import Service

ENDPOINT = {"url": "https://example.com/hook", "enabled_events": ["*"]}
INTENT = {"amount": "10.50", "currency": "USD"}


def new_key() -> str:
    return f"sealed-{uuid.uuid4()}"


def post(api: httpx.Client, path: str, body: dict[str, Any], key: str) -> httpx.Response:
    return api.post(path, json=body, headers={"Idempotency-Key": key})


def stored_response(service: Service, merchant: dict[str, Any], key: str) -> bytes:
    """The `idempotency_keys.response` column as the database holds it."""
    engine = sa.create_engine(service.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            value = conn.execute(sa.text("SELECT response FROM idempotency_keys WHERE merchant_id = :m AND key = :k"),
                                 {"m": merchant["merchant_id"], "k": key}).scalar_one()
    finally:
        engine.dispose()
    return bytes(value)


def test_the_stored_answer_of_a_webhook_endpoint_holds_no_signing_secret(service, merchant, api):
    key = new_key()
    endpoint = ok(post(api, "/v1/webhook_endpoints", ENDPOINT, key))
    column = stored_response(service, merchant, key)
    assert endpoint["secret"].startswith("whsec_")
    assert b"whsec_" not in column and endpoint["secret"].encode() not in column


def test_the_stored_answer_of_a_payment_intent_holds_no_client_secret(service, merchant, api):
    key = new_key()
    intent = ok(post(api, "/v1/payment_intents", INTENT, key))
    column = stored_response(service, merchant, key)
    assert intent["client_secret"]
    assert intent["client_secret"].encode() not in column and b"_secret_" not in column


@pytest.mark.parametrize(("path", "body"), [("/v1/webhook_endpoints", ENDPOINT), ("/v1/payment_intents", INTENT)],
                         ids=["webhook endpoint", "payment intent"])
def test_a_replayed_creation_holding_a_secret_answers_exactly_the_first_answer(api, path, body):
    key = new_key()
    first = post(api, path, body, key)
    replayed = post(api, path, body, key)
    assert first.status_code == replayed.status_code == 200
    assert replayed.headers.get("idempotent-replayed") == "true"
    assert replayed.content == first.content
