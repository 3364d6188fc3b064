"""Group commit on SQLite (issue 13 item 2, server/db/group_commit.py): concurrent units of work share commits,
each is answered only once it is committed, and one unit's failure or cancellation never costs the others theirs,
while a failed COMMIT fails every unit of its group and writes none of it."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from server.db import Database

UNITS = 40


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'group.db'}"


def _committed_ids(url: str) -> set[int]:
    """What another connection sees: committed rows only."""
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        return {row[0] for row in conn.execute("SELECT id FROM jam")}
    finally:
        conn.close()


async def _database(url: str, extra_ddl: tuple[str, ...] = ()) -> Database:
    db = Database(url)
    async with db.engine.begin() as conn:
        await conn.execute(sa.text("CREATE TABLE jam (id INTEGER PRIMARY KEY, v TEXT)"))
        for ddl in extra_ddl:
            await conn.execute(sa.text(ddl))
    return db


def _count_commits(db: Database) -> list[int]:
    commits = [0]
    assert db._writer is not None

    @event.listens_for(db._writer.engine.sync_engine, "commit")
    def _on_commit(_conn: sa.Connection) -> None:
        commits[0] += 1

    return commits


async def _insert(db: Database, id_: int, url: str) -> None:
    async with db.transaction() as s:
        await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (:id, 'x')"), {"id": id_})
    # Answered: committed, as another connection sees it.
    assert id_ in _committed_ids(url)


def test_concurrent_units_share_commits_and_each_is_committed_when_it_returns(url: str) -> None:
    async def run() -> int:
        db = await _database(url)
        commits = _count_commits(db)
        try:
            await asyncio.gather(*(_insert(db, i, url) for i in range(UNITS)))
        finally:
            await db.close()
        return commits[0]

    commits = asyncio.run(run())
    assert _committed_ids(url) == set(range(UNITS))
    assert commits < UNITS / 4, f"{commits} commits for {UNITS} concurrent units"


def test_failing_units_leave_the_other_units_of_their_group_committed(url: str) -> None:
    async def unit(db: Database, id_: int) -> None:
        async with db.transaction() as s:
            await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (:id, 'x')"), {"id": id_})
            if id_ % 3 == 1:
                raise ValueError("the unit's own failure")
            if id_ % 3 == 2:  # a failing statement: the primary key is taken
                await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (:id, 'again')"), {"id": id_})

    async def run() -> list[BaseException | None]:
        db = await _database(url)
        try:
            return await asyncio.gather(*(unit(db, i) for i in range(UNITS)), return_exceptions=True)
        finally:
            await db.close()

    outcomes = asyncio.run(run())
    assert [i for i, o in enumerate(outcomes) if o is None] == [i for i in range(UNITS) if i % 3 == 0]
    assert isinstance(outcomes[1], ValueError) and isinstance(outcomes[2], sa.exc.IntegrityError)
    assert _committed_ids(url) == {i for i in range(UNITS) if i % 3 == 0}


def test_a_failed_commit_fails_every_unit_of_its_group_and_writes_none_of_it(url: str) -> None:
    # A deferred foreign key is checked at COMMIT: the only way a unit can make its group's COMMIT fail on purpose.
    ddl = ("CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER "
           "REFERENCES jam (id) DEFERRABLE INITIALLY DEFERRED)",)

    async def unit(db: Database, id_: int) -> None:
        async with db.transaction() as s:
            await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (:id, 'x')"), {"id": id_})
            if id_ == 5:
                await s.execute(sa.text("INSERT INTO child (id, parent) VALUES (1, 999)"))

    async def run() -> tuple[list[BaseException | None], set[int]]:
        db = await _database(url, ddl)
        try:
            # Created together: the first holds the writer while the others queue, so all join one group.
            outcomes = await asyncio.gather(*(unit(db, i) for i in range(10)), return_exceptions=True)
            after = _committed_ids(url)
            await _insert(db, 100, url)  # the writer works on
            return outcomes, after
        finally:
            await db.close()

    outcomes, after = asyncio.run(run())
    assert all(isinstance(o, sa.exc.IntegrityError) for o in outcomes), outcomes
    assert after == set()
    assert _committed_ids(url) == {100}


def test_a_unit_cancelled_mid_statement_costs_the_other_units_of_its_group_nothing(url: str) -> None:
    slow = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000) "
            "SELECT count(*) FROM n")

    async def run() -> None:
        db = await _database(url)
        commits = _count_commits(db)
        try:
            in_statement = asyncio.Event()

            async def cancelled_unit() -> None:
                async with db.transaction() as s:
                    await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (2, 'cancelled')"))
                    in_statement.set()
                    await s.execute(sa.text(slow))

            first = asyncio.create_task(_insert(db, 1, url))
            cancelled = asyncio.create_task(cancelled_unit())
            last = asyncio.create_task(_insert(db, 3, url))
            await asyncio.wait_for(in_statement.wait(), 15)
            await asyncio.sleep(0.2)
            cancelled.cancel()
            await asyncio.wait_for(asyncio.gather(first, last), 15)
            with pytest.raises(asyncio.CancelledError):
                await cancelled
            assert commits[0] == 1, "the three units shared one commit"
            await _insert(db, 4, url)
        finally:
            await db.close()

    asyncio.run(run())
    assert _committed_ids(url) == {1, 3, 4}


def test_units_cancelled_at_random_cost_the_uncancelled_units_nothing(url: str) -> None:
    """Every other unit is cancelled at a random instant of its first 50 ms: every uncancelled one commits."""
    async def run() -> tuple[int, list[BaseException]]:
        db = await _database(url)
        rng = random.Random(11)
        serial = iter(range(1, 10**9))
        committed: list[int] = []
        try:
            async def unit() -> None:
                async with db.transaction() as s:
                    id_ = next(serial)
                    await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (:id, 'x')"), {"id": id_})
                    await s.execute(sa.text("SELECT count(*) FROM jam"))
                committed.append(id_)

            async def cancel(task: asyncio.Task[None]) -> None:
                await asyncio.sleep(rng.uniform(0, 0.05))
                task.cancel()

            errors: list[BaseException] = []
            for _ in range(6):
                tasks = [asyncio.create_task(unit()) for _ in range(40)]
                await asyncio.gather(*(cancel(t) for t in tasks[::2]))
                outcomes = await asyncio.gather(*tasks, return_exceptions=True)
                errors += [o for o in outcomes[1::2] if isinstance(o, BaseException)]
            await _insert(db, 10**6, url)
            assert set(committed) <= _committed_ids(url)
            return len(committed), errors
        finally:
            await db.close()

    committed, errors = asyncio.run(run())
    assert errors == []
    assert committed >= 6 * 20
