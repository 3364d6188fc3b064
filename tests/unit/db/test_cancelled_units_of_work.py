"""Units of work cancelled at any instant (a gRPC deadline cancels the handler's task at whatever await it is in)
end anyway: no connection stays checked out, none stays in a transaction, and the next writer commits at once
(issue 8, finding 3), on SQLite and PostgreSQL.

The random test spreads its cancellations over the first 50 ms of 50 concurrent units of work, so that many land
while a unit connects and sends BEGIN (IMMEDIATE on SQLite), inside its statements, and during its commit. The
deterministic one cancels a unit inside a long statement and keeps the cancelled task referenced, as a server does
for a while: the case that used to jam SQLite. A connection discarded in doubt was closed with its cursor still
referenced by the cancellation's traceback, so `sqlite3_close_v2` left it a zombie holding its transaction and the
write lock (server/db/sqlite_driver.py says why and how connections now roll back before they close).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.db import Database
from tests.harness import create_database, drop_database
from tests.unit.db_support import cancel_once_started, left_in_transaction

ROUNDS = 12
UNITS = 50


@pytest.fixture(params=["sqlite", "sqlite-one-commit-per-unit", "postgresql"])
def db_args(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, bool]]:
    """The database's URL and whether SQLite commits in groups (the default) or one unit at a time."""
    url = create_database(request.param.split("-")[0], tmp_path)
    yield url, not request.param.endswith("one-commit-per-unit")
    drop_database(url)


async def _cancel_at_random(url: str, group_commit: bool) -> None:
    db = Database(url, group_commit=group_commit)
    try:
        async with db.engine.begin() as conn:
            await conn.execute(sa.text("CREATE TABLE jam (id INTEGER PRIMARY KEY, v TEXT)"))
        rng = random.Random(5)
        serial = iter(range(1, 10**9))

        async def unit() -> None:
            async with db.transaction() as s:
                await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (:id, 'x')"), {"id": next(serial)})
                await s.execute(sa.text("SELECT count(*) FROM jam"))

        async def cancel(task: asyncio.Task[None]) -> None:
            await asyncio.sleep(rng.uniform(0, 0.05))
            task.cancel()

        for n in range(ROUNDS):
            tasks = [asyncio.create_task(unit()) for _ in range(UNITS)]
            await asyncio.gather(*(cancel(t) for t in tasks))
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.sleep(0.2)  # the units' ends run on in tasks of their own
            started = time.monotonic()
            await asyncio.wait_for(unit(), 15)
            assert time.monotonic() - started < 2, f"round {n}: a writer waited behind an abandoned transaction"
            assert db.engine.pool.checkedout() == 0, f"round {n}: a connection was never given back"
            assert await left_in_transaction(db) == 0, f"round {n}: a connection stayed in its transaction"
    finally:
        await db.close()


def test_units_of_work_cancelled_at_any_instant_leave_no_transaction_open(db_args: tuple[str, bool]) -> None:
    asyncio.run(_cancel_at_random(*db_args))


# About two seconds of work inside the transaction, so that the cancellation lands mid-statement.
SLOW = {"sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) "
                  "SELECT count(*) FROM n",
        "postgresql": "SELECT pg_sleep(2)"}


async def _cancel_mid_statement(url: str, group_commit: bool) -> None:
    db = Database(url, group_commit=group_commit)
    try:
        async with db.engine.begin() as conn:
            await conn.execute(sa.text("CREATE TABLE jam (id INTEGER PRIMARY KEY, v TEXT)"))

        async def slow_unit(in_statement: asyncio.Event) -> None:
            async with db.transaction() as s:
                await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (1, 'cancelled')"))
                in_statement.set()
                await s.execute(sa.text(SLOW[db.dialect]))

        cancelled = await cancel_once_started(slow_unit)
        # `cancelled` stays referenced (and with it its CancelledError, whose traceback holds the unit's cursor)
        # while the next writer writes the same row.
        async with asyncio.timeout(15):
            async with db.transaction() as s:
                await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (1, 'next')"))
        async with db.read() as s:
            assert (await s.execute(sa.text("SELECT v FROM jam"))).scalars().all() == ["next"]
        assert cancelled.cancelled()
        assert db.engine.pool.checkedout() == 0
        assert await left_in_transaction(db) == 0
    finally:
        await db.close()


def test_unit_of_work_cancelled_mid_statement_leaves_the_next_writer_free_while_its_task_lives(
        db_args: tuple[str, bool]) -> None:
    asyncio.run(_cancel_mid_statement(*db_args))
