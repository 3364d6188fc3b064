"""The webhook fan-out (server/webhooks/queue.py): an event recorded in a unit of work gets one pending attempt per
active endpoint of its merchant and mode subscribed to its type, written by one INSERT … SELECT in the same
transaction. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import col, select

from server import clock
from server.db import Database
from server.events import outbox
from server.events.models import Event
from server.ids import new_id
from server.merchants.models import Merchant
from server.webhooks.models import Delivery, DeliveryStatus, WebhookEndpoint
from server.webhooks.queue import _Subscribed, fan_out, subscribed
from tests.harness import migrated_database
from tests.unit.events.test_deferred_events import resource

ID = re.compile(r"^evtd_[0-9A-Za-z]{24}$")
ENDPOINTS_PER_MODE = 16  # the most a merchant may have in a mode (README "Webhooks")
ENDPOINTS = WebhookEndpoint.__table__  # type: ignore[attr-defined]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


def endpoint(merchant_id: str, name: str, *, events: list[str] | None = None, livemode: bool = False,
             **extra: Any) -> WebhookEndpoint:
    return WebhookEndpoint(id=new_id("we"), merchant_id=merchant_id, livemode=livemode, url=f"https://e.test/{name}",
                           enabled_events=["*"] if events is None else events, secret="sealed",
                           api_version=outbox.API_VERSION, created=0, updated=0, **extra)


def run(url: str, work: Any) -> Any:
    async def go() -> Any:
        db = Database(url)
        outbox.subscribe(db, fan_out)
        try:
            return await work(db)
        finally:
            await db.close()
    return asyncio.run(go())


async def merchant(db: Database, *endpoints: Any) -> str:
    merchant_id = new_id("mch")
    async with db.transaction() as s:
        s.add(Merchant(id=merchant_id, name="M", created=0))
        await s.flush()
        for make in endpoints:
            s.add(make(merchant_id))
    return merchant_id


async def record(db: Database, merchant_id: str, *types: str, livemode: bool = False) -> list[Event]:
    async with db.transaction() as s:
        for type_ in types:
            await outbox.record(s, merchant_id=merchant_id, livemode=livemode, type=type_,
                                resource=resource("cus_1"))
    async with db.read() as s:
        return list(await s.exec(select(Event).where(col(Event.merchant_id) == merchant_id)
                                 .order_by(col(Event.sort_key))))


async def deliveries(db: Database) -> list[Delivery]:
    async with db.read() as s:
        return list(await s.exec(select(Delivery).order_by(col(Delivery.sort_key))))


def test_an_event_gets_one_pending_attempt_per_active_subscribed_endpoint_of_its_merchant_and_mode(url: str) -> None:
    async def work(db: Database) -> tuple[set[str], list[Delivery], Event]:
        other = await merchant(db, lambda m: endpoint(m, "other-merchant"))
        assert other
        merchant_id = await merchant(
            db,
            lambda m: endpoint(m, "all"),
            lambda m: endpoint(m, "named", events=["invoice.paid", "customer.created"]),
            lambda m: endpoint(m, "not-subscribed", events=["invoice.paid"]),
            lambda m: endpoint(m, "disabled", disabled=True),
            lambda m: endpoint(m, "deleted", deleted_at=1),
            lambda m: endpoint(m, "live", livemode=True))
        [event] = await record(db, merchant_id, "customer.created")
        rows = await deliveries(db)
        return {row.url.rsplit("/", 1)[1] for row in rows}, rows, event

    targets, rows, event = run(url, work)
    assert targets == {"all", "named"}
    for row in rows:
        assert ID.match(row.id)
        assert (row.event_id, row.merchant_id, row.object_id, row.event_sort_key) == (
            event.id, event.merchant_id, event.object_id, event.sort_key)
        assert (row.attempt, row.status, row.due_at, row.window_start) == (1, DeliveryStatus.PENDING, event.created,
                                                                            event.created)
        assert (row.locked_until, row.lease, row.http_status, row.attempted_at) == (None, "", 0, None)


def test_an_events_attempts_have_distinct_ids_and_sort_keys_newer_than_any_before(url: str) -> None:
    async def work(db: Database) -> tuple[int, list[Delivery]]:
        merchant_id = await merchant(db, *[lambda m, n=n: endpoint(m, f"e{n}")
                                           for n in range(ENDPOINTS_PER_MODE)])
        before = clock.sort_key()
        await record(db, merchant_id, "customer.created", "customer.updated")
        return before, await deliveries(db)

    before, rows = run(url, work)
    assert len(rows) == 2 * ENDPOINTS_PER_MODE
    assert len({row.id for row in rows}) == len(rows)
    assert len({row.sort_key for row in rows}) == len(rows)
    assert min(row.sort_key for row in rows) > before
    assert all(ID.match(row.id) for row in rows)


def test_an_event_without_subscribed_endpoints_gets_no_attempt(url: str) -> None:
    async def work(db: Database) -> tuple[int, list[Delivery]]:
        merchant_id = await merchant(db, lambda m: endpoint(m, "none", events=[]))
        events = await record(db, merchant_id, "customer.created")
        return len(events), await deliveries(db)

    assert run(url, work) == (1, [])


@pytest.mark.parametrize("enabled_events", [
    ["*"], [], ["customer.created"], ["customer.updated"], ["customer.created", "*"], ["customer.*"],
    ["Customer.Created"], ["customer.created "], ["%"], ["customer_created"], ["customer.cre"],
])
def test_the_sql_subscription_rule_agrees_with_subscribed(url: str, enabled_events: list[str]) -> None:
    types = ["customer.created", "customer.updated", "invoice.paid", "*", "%", "customer.*"]

    async def work(db: Database) -> list[bool]:
        merchant_id = await merchant(db, lambda m: endpoint(m, "e", events=enabled_events))
        out = []
        async with db.read() as s:
            for type_ in types:
                found = await s.exec(sa.select(sa.func.count()).select_from(ENDPOINTS).where(  # type: ignore[call-overload]
                    ENDPOINTS.c.merchant_id == merchant_id, _Subscribed(ENDPOINTS.c.enabled_events, type_)))
                out.append(found.one()[0] == 1)
        return out

    assert run(url, work) == [subscribed(enabled_events, type_) for type_ in types]


def test_an_events_attempts_are_not_written_when_its_unit_of_work_fails(url: str) -> None:
    async def work(db: Database) -> tuple[int, int]:
        merchant_id = await merchant(db, lambda m: endpoint(m, "all"))
        with pytest.raises(RuntimeError):
            async with db.transaction() as s:
                await outbox.record(s, merchant_id=merchant_id, livemode=False, type="customer.created",
                                    resource=resource("cus_1"))
                raise RuntimeError("the call fails after recording")
        async with db.read() as s:
            events = len(list(await s.exec(select(Event))))
        return events, len(await deliveries(db))

    assert run(url, work) == (0, 0)
