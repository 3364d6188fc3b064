"""Events recorded with `outbox.DEFER_FLUSH` (a renewal sweep's batch): kept as rows and inserted in one statement
before the unit of work's next flush or its commit, so a subscriber's rows that refer to them (webhook deliveries)
land after them; committed with the rest or not at all. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import struct_pb2
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.db import Database
from server.events import outbox
from server.events.models import Event
from server.ids import new_id
from server.merchants.models import Merchant
from server.webhooks.models import Delivery, WebhookEndpoint
from server.webhooks.queue import fan_out
from tests.harness import migrated_database


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


def resource(object_id: str) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update({"id": object_id, "object": "thing"})
    return out


async def merchant_with_endpoint(db: Database) -> str:
    merchant_id = new_id("mch")
    async with db.transaction() as s:
        s.add(Merchant(id=merchant_id, name="M", created=0))
        await s.flush()
        s.add(WebhookEndpoint(id=new_id("we"), merchant_id=merchant_id, livemode=False, url="https://e.test/h",
                              enabled_events=["*"], secret="sealed", api_version=outbox.API_VERSION, created=0,
                              updated=0))
    return merchant_id


async def record_deferred(s: AsyncSession, merchant_id: str, types: list[str]) -> None:
    s.info[outbox.DEFER_FLUSH] = True
    await outbox.record_each(s, merchant_id=merchant_id, livemode=False, types=types, resource=resource("thing_1"))


async def events_and_deliveries(db: Database) -> tuple[list[str], int]:
    async with db.read() as s:
        types = [e.type for e in await s.exec(select(Event).order_by(col(Event.sort_key)))]
        deliveries = len(list(await s.exec(select(Delivery))))
    return types, deliveries


def test_deferred_events_are_committed_before_the_deliveries_a_subscriber_adds(url: str) -> None:
    async def run() -> tuple[list[str], int]:
        db = Database(url)
        try:
            outbox.subscribe(db, fan_out)
            merchant_id = await merchant_with_endpoint(db)
            async with db.transaction() as s:
                await record_deferred(s, merchant_id, ["thing.created", "thing.updated"])
                assert list(await s.exec(select(Event))) != []  # a query's autoflush inserts them first
                await record_deferred(s, merchant_id, ["thing.deleted"])
            return await events_and_deliveries(db)
        finally:
            await db.close()

    assert asyncio.run(run()) == (["thing.created", "thing.updated", "thing.deleted"], 3)


def test_deferred_events_with_nothing_else_to_flush_are_inserted_at_the_commit(url: str) -> None:
    async def run() -> tuple[list[str], int]:
        db = Database(url)
        try:
            merchant_id = await merchant_with_endpoint(db)
            async with db.transaction() as s:
                await record_deferred(s, merchant_id, ["thing.created"])
            return await events_and_deliveries(db)
        finally:
            await db.close()

    assert asyncio.run(run()) == (["thing.created"], 0)


def test_deferred_events_of_a_unit_of_work_that_fails_are_not_written(url: str) -> None:
    async def run() -> tuple[list[str], int]:
        db = Database(url)
        try:
            outbox.subscribe(db, fan_out)
            merchant_id = await merchant_with_endpoint(db)
            with pytest.raises(RuntimeError):
                async with db.transaction() as s:
                    await record_deferred(s, merchant_id, ["thing.created"])
                    raise RuntimeError("the batch fails")
            return await events_and_deliveries(db)
        finally:
            await db.close()

    assert asyncio.run(run()) == ([], 0)
