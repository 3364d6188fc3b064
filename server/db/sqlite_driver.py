"""aiosqlite connections that roll back before they close (issue 8, finding 3).

Why: Python's `sqlite3.Connection.close()` calls `sqlite3_close_v2`, which, while any statement of the connection is
not yet finalized, leaves the connection open as a "zombie" **with its transaction still open**: SQLite rolls back
only when the last statement is finalized. A statement is finalized when its `sqlite3.Cursor` is freed, and a
cancelled unit of work keeps its cursors alive for an unbounded time: the CancelledError's traceback holds the frames
of `aiosqlite.core._execute` (whose locals hold the cursor's bound `execute`), the cancelled task keeps that error,
and the frames form reference cycles that only the cyclic collector frees. So a connection discarded in doubt after
`BEGIN IMMEDIATE` kept SQLite's write lock, and every other writer failed with "database is locked" until something
freed those frames (or the process restarted).

The cure is to end the transaction on the connection's own thread, after whatever statement is still queued there,
before closing it: a ROLLBACK is allowed with statements pending (they are aborted) and releases the locks at once,
whatever still refers to the cursors. Every way aiosqlite closes a connection goes through `close()` (SQLAlchemy's
graceful terminate) or `stop()` (its forced terminate, garbage collection), so both roll back first.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import aiosqlite
from sqlalchemy.engine import make_url

from server.db import aggregates

log = logging.getLogger("paygate.db")


def _roll_back(conn: sqlite3.Connection) -> None:
    """Runs on the connection's worker thread, after every operation queued before it."""
    try:
        if conn.in_transaction:
            conn.rollback()
    except sqlite3.Error as e:  # already closed, or the disk is gone: close() still follows
        log.warning("rollback before close failed", extra={"error": type(e).__name__})


class RollbackOnCloseConnection(aiosqlite.Connection):
    """An aiosqlite connection whose every close path rolls back its open transaction first."""

    async def close(self) -> None:
        conn = self._connection
        if conn is not None and self._running:
            try:
                await self._execute(_roll_back, conn)  # errors are logged there: close all the same
            finally:
                await super().close()
            return
        await super().close()

    def stop(self) -> asyncio.Future[Any] | None:
        conn = self._connection
        if conn is not None and self._running:
            # Queued, so it runs after the operation in flight and before aiosqlite's close.
            self._tx.put_nowait((None, partial(_roll_back, conn)))
        return super().stop()


def async_creator(url: str) -> Callable[[], Awaitable[aiosqlite.Connection]]:
    """SQLAlchemy's `async_creator` for a `sqlite+aiosqlite:///path` URL: what the stock dialect would open, as a
    `RollbackOnCloseConnection`."""
    database = make_url(url).database or ":memory:"

    def connector() -> sqlite3.Connection:
        # check_same_thread as SQLAlchemy's own aiosqlite dialect: the connection lives on its worker thread.
        conn = sqlite3.connect(database, check_same_thread=False)
        aggregates.register(conn)  # exact sums of decimal strings (server/db/aggregates.py)
        return conn

    async def create() -> aiosqlite.Connection:
        connection = RollbackOnCloseConnection(connector, iter_chunk_size=64)
        connection._thread.daemon = True  # as SQLAlchemy's dialect does: never keeps the process alive
        return await connection

    return create
