"""A SQLite connection discarded in the middle of a write transaction releases the write lock at once, even while
one of its cursors is still referenced (issue 8 finding 3; server/db/sqlite_driver.py). Closing it used to leave
a zombie that kept the transaction, so every writer then failed with "database is locked"."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.db import Database
from server.db.sqlite_driver import plain_savepoints


async def _discard_with_a_live_cursor(url: str) -> None:
    db = Database(url)
    try:
        async with db.engine.begin() as conn:
            await conn.execute(sa.text("CREATE TABLE jam (id INTEGER PRIMARY KEY, v TEXT)"))
        conn = await db.engine.connect()
        await conn.begin()  # BEGIN IMMEDIATE: holds the write lock
        await conn.execute(sa.text("INSERT INTO jam (id, v) VALUES (1, 'discarded')"))
        raw = await conn.get_raw_connection()
        # What a cancelled unit's traceback does: keeps a cursor with an unfinished statement alive.
        cursor = await raw.driver_connection.execute("SELECT id FROM jam")  # type: ignore[union-attr]
        await conn.invalidate()  # the connection is in doubt: discarded, never pooled
        async with asyncio.timeout(5):  # the busy timeout (10 s) would run out first
            async with db.transaction() as s:
                await s.execute(sa.text("INSERT INTO jam (id, v) VALUES (1, 'next')"))
        async with db.read() as s:
            assert (await s.execute(sa.text("SELECT v FROM jam"))).scalars().all() == ["next"]
        assert cursor is not None  # still referenced up to here
    finally:
        await db.close()


def test_a_discarded_connection_releases_the_write_lock_while_its_cursor_lives(tmp_path: Path) -> None:
    asyncio.run(_discard_with_a_live_cursor(f"sqlite:///{tmp_path / 'driver.db'}"))


def test_plain_savepoints_refuse_a_name_that_is_not_an_identifier() -> None:
    engine = sa.create_engine("sqlite://")
    plain_savepoints(engine)
    with engine.connect() as conn, pytest.raises(ValueError, match="savepoint name"):
        engine.dialect.do_savepoint(conn, "x; DROP TABLE t")


def test_plain_savepoints_keep_and_undo_what_they_enclose() -> None:
    engine = sa.create_engine("sqlite://")
    plain_savepoints(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (v INTEGER)")
        with conn.begin_nested():
            conn.exec_driver_sql("INSERT INTO t VALUES (1)")
        nested = conn.begin_nested()
        conn.exec_driver_sql("INSERT INTO t VALUES (2)")
        nested.rollback()
        assert conn.exec_driver_sql("SELECT v FROM t").scalars().all() == [1]
