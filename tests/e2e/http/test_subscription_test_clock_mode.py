"""The subscription test clock exists in test mode only (server/subscriptions/service.py `check_clock`): a live
subscription refuses it, so no one can move a live customer's billing time.

A live subscription needs a live payment (a mainnet chain or a live card provider), which no test has: the live
merchant's product, plan and customer are made through /v1 with its live key, and the subscription row is written
beside them, as the renewal sweep's tests write theirs. The same row in test mode takes the clock, so the refusal is
the mode's alone."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from server.db import Database
from server.ids import new_id
from server.subscriptions.models import Subscription
from tests import seed
from tests.conftest import fails, ok
from tests.e2e.http.builders import selling_plan, variant_product_body
from tests.harness import Service

DAY = 86_400


def _subscription(service: Service, merchant: dict[str, Any], api: httpx.Client, livemode: bool) -> str:
    """An active monthly subscription of the key's mode, in its first period, on objects made with `api`."""
    product = ok(api.post("/v1/products", json=variant_product_body(("10.00",), selling_plans=[selling_plan()])))
    customer = seed.customer(api)
    now = int(time.time())
    sub = Subscription(
        id=new_id("sub"), merchant_id=merchant["merchant_id"], livemode=livemode, customer_id=customer["id"],
        product_id=product["id"], variant_id=product["variants"][0]["id"],
        selling_plan_id=product["selling_plans"][0]["id"], currency="USD", status="active",
        billing_cycle_anchor=now, current_period_start=now, current_period_end=now + 30 * DAY,
        current_cycle_number=1, renew_at=now + 30 * DAY, due_at=now + 30 * DAY, created_at=now, updated_at=now)

    async def write() -> None:
        db = Database(service.database_url)
        try:
            async with db.transaction() as session:
                session.add(sub)
        finally:
            await db.close()

    asyncio.run(write())
    return sub.id


def _stored_clock(service: Service, sub_id: str) -> int | None:
    async def read() -> int | None:
        db = Database(service.database_url)
        try:
            async with db.read() as session:
                row = await session.get(Subscription, sub_id)
                assert row is not None
                return row.test_clock
        finally:
            await db.close()

    return asyncio.run(read())


def test_a_live_subscription_refuses_the_test_clock(service, merchant, live_api):
    sub_id = _subscription(service, merchant, live_api, livemode=True)
    fails(live_api.post(f"/v1/subscriptions/{sub_id}/test_clock/advance", json={"to": int(time.time()) + 3600}),
          403, "forbidden")
    assert _stored_clock(service, sub_id) is None


def test_a_test_subscription_written_the_same_way_takes_the_test_clock(service, merchant, api):
    sub_id = _subscription(service, merchant, api, livemode=False)
    to = int(time.time()) + 3600
    moved = ok(api.post(f"/v1/subscriptions/{sub_id}/test_clock/advance", json={"to": to}))
    assert moved["test_clock"]["frozen_time"] == to, moved
    assert _stored_clock(service, sub_id) == to
