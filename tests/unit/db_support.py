"""Running a scenario against a fresh `Database` of a migrated database that holds one merchant."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
import sqlalchemy as sa

from server.db import Database
from server.merchants.models import Merchant

T = TypeVar("T")
MERCHANT_ID = "mch_1"


def with_merchant(url: str, work: Callable[[Database], Awaitable[T]]) -> T:
    """`work(db)` on a `Database` of `url` once merchant `mch_1` is committed; the database is closed after."""
    async def go() -> T:
        db = Database(url)
        try:
            async with db.transaction() as s:
                s.add(Merchant(id=MERCHANT_ID, name="M", created=0))
            return await work(db)
        finally:
            await db.close()
    return asyncio.run(go())


async def left_in_transaction(db: Database) -> int:
    """PostgreSQL: connections of the database other than this one left idle in a transaction (0 on SQLite)."""
    if not db.is_postgres:
        return 0
    async with db.engine.connect() as conn:
        return int((await conn.execute(sa.text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND state LIKE 'idle in transaction%'"))).scalar_one())


async def cancel_once_started(work: Callable[[asyncio.Event], Awaitable[None]]) -> asyncio.Task[None]:
    """Runs `work(started)` in a task, cancels it 0.3 s after it sets `started` (so that the cancellation lands in
    the statement it runs next), and returns the task once it has ended cancelled."""
    started = asyncio.Event()
    task = asyncio.ensure_future(work(started))
    await asyncio.wait_for(started.wait(), 15)
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return task
