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


def poll(read: Callable[[], dict[str, Any]], check: Callable[[dict[str, Any]], bool], seconds: float = 20,
         every: float = 0.5) -> dict[str, Any]:
    """`read()` again until `check` holds, for at most `seconds`; the last answer."""
    deadline = time.monotonic() + seconds
    while True:
        seen = read()
        if check(seen):
            return seen
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        time.sleep(every)


def wait_for(api: httpx.Client, intent_id: str, check: Callable[[dict[str, Any]], bool],
             seconds: float = 20) -> dict[str, Any]:
    return poll(lambda: ok(api.get(f"/v1/payment_intents/{intent_id}")), check, seconds)


def refund_ends(api: httpx.Client, refund_id: str, status: str = "Success", seconds: float = 20) -> dict[str, Any]:
    """The card refund once the provider's answer is recorded (its create call answers it Pending): `status`."""
    done = poll(lambda: ok(api.get(f"/v1/refunds/{refund_id}")),
                lambda r: r["status"] in ("Success", "Failed"), seconds, every=0.2)
    assert done["status"] == status, done
    return done
