"""Helpers of the card tests: the database read directly, intents paid by card through the /v1 API."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import sqlalchemy as sa

from tests.conftest import ok
from tests.harness import Service

SUCCEEDS = "4242424242424242"
DECLINED = "4000000000000341"
THREE_D_SECURE = "4000000000003220"


def rows(service: Service, sql: str, **params: Any) -> list[dict[str, Any]]:
    engine = sa.create_engine(service.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(sa.text(sql), params)]
    finally:
        engine.dispose()


def new_intent(api: httpx.Client, amount: str = "10.50", currency: str = "USD", **fields: Any) -> dict[str, Any]:
    return ok(api.post("/v1/payment_intents", json={"amount": amount, "currency": currency, **fields}))  # type: ignore


def choose_card(api: httpx.Client, intent_id: str, **fiat: Any) -> httpx.Response:
    return api.post(f"/v1/payment_intents/{intent_id}", json={
        "payment_method_type": "cards", "payment_method_options": {"fiat": {"currency": "USD", **fiat}}})


def chose_card(api: httpx.Client, intent_id: str, **fiat: Any) -> dict[str, Any]:
    return ok(choose_card(api, intent_id, **fiat))["payment_intents"][0]  # type: ignore[no-any-return]


def wait_for(api: httpx.Client, intent_id: str, check: Callable[[dict[str, Any]], bool],
             seconds: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        seen: dict[str, Any] = ok(api.get(f"/v1/payment_intents/{intent_id}"))
        if check(seen):
            return seen
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        time.sleep(0.5)
