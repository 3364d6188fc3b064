"""The scheduler of a running paygate goes on past a subscription whose step fails: another merchant's trial still
gets its `subscription.trial_will_end` notice, and the failing subscription is logged by id and put off, to be tried
again later. A service of this module's own (its broken subscription stays broken), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from server.db import Database
from server.subscriptions import renewal
from tests.conftest import ok
from tests.e2e.subscriptions.test_resume_unpaid_renewal import start_trial
from tests.harness import TLS, Service, log_lines, start, stop

WAIT_SECONDS = 30


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def own_service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"sweep-isolation-{request.param}")))
    yield svc
    stop(svc)


def client(service: Service, name: str) -> httpx.Client:
    merchant = service.create_merchant(name)
    return httpx.Client(base_url=service.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30, verify=TLS)


def sql(service: Service, statement: str, **params: Any) -> list[tuple[Any, ...]]:
    async def run() -> list[tuple[Any, ...]]:
        db = Database(service.database_url)
        try:
            async with db.transaction() as s:
                result = await s.connection()
                rows = await result.execute(sa.text(statement), params)
                return [tuple(r) for r in rows] if rows.returns_rows else []
        finally:
            await db.close()
    return asyncio.run(run())


def trial_will_end_seen(api: httpx.Client, sub_id: str) -> bool:
    found = ok(api.get("/v1/events", params={"type": "subscription.trial_will_end", "page_size": 100}))["events"]
    return any(e["data"]["object"].get("id") == sub_id for e in found)


def test_the_scheduler_goes_on_past_a_subscription_whose_plan_is_gone(own_service: Service) -> None:
    with client(own_service, "Gone plan") as broken_shop, client(own_service, "Beans & Co") as other_shop:
        # A 1-day trial's notice is due at once: the broken subscription must be due before it.
        broken = start_trial(broken_shop)["id"]
        ok(broken_shop.post(f"/v1/subscriptions/{broken}/pause",
                            json={"behavior": "void", "resumes_at": int(time.time()) + 2}))
        sql(own_service, "UPDATE subscriptions SET selling_plan_id = 'sp_gone' WHERE id = :id", id=broken)
        time.sleep(3)  # its resume is due: the scheduler fails on it from now on
        healthy = start_trial(other_shop)["id"]

        deadline = time.monotonic() + WAIT_SECONDS
        while not trial_will_end_seen(other_shop, healthy):
            assert time.monotonic() < deadline, "the other merchant's trial_will_end never came"
            time.sleep(0.5)

        [(due_at,)] = sql(own_service, "SELECT due_at FROM subscriptions WHERE id = :id", id=broken)
        assert due_at is not None and due_at > time.time() + renewal.RETRY_SECONDS - 60
        assert log_lines(own_service, logger="paygate.subscriptions", level="error", subscription=broken)
