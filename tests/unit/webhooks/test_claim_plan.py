"""A claim reads a batch, not the backlog: on PostgreSQL, even before the table has statistics, the claim walks the
pending attempts in its own order and stops after the batch, with nothing sorted (server/webhooks/delivery.py
`ORDERED_WALK`). Without that, a backlog slowed its own delivery: every claim read and sorted all of it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from paygate.v1 import customers_pb2

from server.boot.cli import create_merchant_record
from server.clock import now_of
from server.config import load_settings
from server.db import Database
from server.events.outbox import API_VERSION, record, subscribe
from server.ids import new_id
from server.webhooks.delivery import BATCH_SIZE, ORDERED_WALK, claim_query
from server.webhooks.models import WebhookEndpoint
from server.webhooks.queue import fan_out
from tests.harness import migrated_database

BACKLOG = 3000


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    yield from migrated_database("postgresql", tmp_path)


async def backlog(url: str, count: int) -> None:
    """`count` pending attempts for one endpoint, in one burst (the table never analysed)."""
    merchant = (await create_merchant_record(load_settings({"PAYGATE_DATABASE_URL": url}), "Backlog"))["merchant_id"]
    db = Database(url)
    subscribe(db, fan_out)
    try:
        async with db.transaction() as session:
            now = now_of(session)
            session.add(WebhookEndpoint(id=new_id("we"), merchant_id=merchant, livemode=False,
                                        url="https://hooks.example.com/in", enabled_events=["*"], secret="whsec_t",
                                        api_version=API_VERSION, created=now, updated=now))
        for start in range(0, count, 500):
            async with db.transaction() as session:
                for _ in range(start, min(count, start + 500)):
                    await record(session, merchant_id=merchant, livemode=False, type="customer.created",
                                 resource=customers_pb2.Customer(id=new_id("cus"), object="customer"))
    finally:
        await db.close()


async def claim_plan(url: str) -> dict[str, Any]:
    db = Database(url)
    try:
        async with db.transaction() as session:
            conn = await session.connection()
            await conn.exec_driver_sql(ORDERED_WALK)
            query = claim_query(db.clock.now() + 60, BATCH_SIZE)
            compiled = query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True})
            plan = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {compiled}")).scalar_one()
            return (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]
    finally:
        await db.close()


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def test_a_claim_under_a_backlog_sorts_nothing(url: str) -> None:
    asyncio.run(backlog(url, BACKLOG))
    plan = asyncio.run(claim_plan(url))
    assert [n["Node Type"] for n in nodes(plan) if "Sort" in n["Node Type"]] == []


def test_a_claim_under_a_backlog_reads_about_one_batch_of_it(url: str) -> None:
    asyncio.run(backlog(url, BACKLOG))
    plan = asyncio.run(claim_plan(url))
    walked = [n for n in nodes(plan) if n.get("Relation Name") == "event_deliveries" and n.get("Alias") != "older"]
    assert len(walked) == 1
    assert walked[0]["Index Name"] == "ix_event_deliveries_pending"
    assert walked[0]["Actual Rows"] <= 2 * BATCH_SIZE
    assert plan["Actual Rows"] == BATCH_SIZE
