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

One hop per statement (issue 13): SQLAlchemy's aiosqlite adapter makes three or four trips to the connection's
thread per statement (open a cursor, execute, fetch the rows, close the cursor), each a thread hand-off and a wake
of the event loop; on SQLite's one writer they were most of the time a write unit held the lock. `OneHopCursor`
runs the whole statement (cursor, execute, fetch all rows, close) as one call on the connection's thread and keeps
the rows, the description, the row count and the last row id in the adapter. The sqlite3 cursor never leaves that
call, so it is finalized when the call ends, whatever happens to the task that awaited it.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Sequence
from functools import partial
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_connection, AsyncAdapt_aiosqlite_dbapi
from sqlalchemy.engine import make_url
from sqlalchemy.util.concurrency import await_

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


# ------------------------------------------------------------------------------------------ one hop per statement

_Outcome = tuple[Any, list[Any], int, Any]  # description, rows, rowcount, lastrowid


def _run_one(conn: sqlite3.Connection, operation: str, parameters: Any) -> _Outcome:
    """On the connection's thread: the whole statement, its cursor closed (the statement reset) before returning."""
    cursor = conn.cursor()
    try:
        if parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        return description, (cursor.fetchall() if description else []), cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


def _run_many(conn: sqlite3.Connection, operation: str, seq_of_parameters: Any) -> _Outcome:
    cursor = conn.cursor()
    try:
        cursor.executemany(operation, seq_of_parameters)
        description = cursor.description
        return description, (cursor.fetchall() if description else []), cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class OneHopCursor:
    """The DBAPI cursor SQLAlchemy's async adapter expects (`AsyncAdapt_dbapi_cursor`'s surface), with each
    `execute` one call on the connection's thread. Rows are buffered, as the stock adapter's are."""

    server_side = False
    __slots__ = ("_adapt_connection", "_rows", "arraysize", "description", "lastrowid", "rowcount")

    def __init__(self, adapt_connection: AsyncAdapt_aiosqlite_connection) -> None:
        self._adapt_connection = adapt_connection
        self._rows: collections.deque[Any] = collections.deque()
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: Any = None
        self.arraysize = 1

    async def _run(self, fn: Callable[[sqlite3.Connection, str, Any], _Outcome], operation: str,
                   parameters: Any) -> None:
        adapt = self._adapt_connection
        connection: aiosqlite.Connection = adapt._connection  # type: ignore[assignment]
        async with adapt._execute_mutex:
            outcome = await connection._execute(fn, connection._conn, operation, parameters)
        self.description, rows, self.rowcount, self.lastrowid = outcome
        self._rows = collections.deque(rows)

    def execute(self, operation: str, parameters: Any = None) -> None:
        try:
            await_(self._run(_run_one, operation, parameters))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: str, seq_of_parameters: Any) -> None:
        try:
            await_(self._run(_run_many, operation, seq_of_parameters))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _async_soft_close(self) -> None:
        """Nothing to close: the sqlite3 cursor was closed on the thread."""

    def close(self) -> None:
        self._rows.clear()

    def setinputsizes(self, *inputsizes: Any) -> None:
        pass

    def nextset(self) -> None:
        return None

    def __enter__(self) -> OneHopCursor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __iter__(self) -> Iterator[Any]:
        while self._rows:
            yield self._rows.popleft()

    def fetchone(self) -> Any:
        return self._rows.popleft() if self._rows else None

    def fetchmany(self, size: int | None = None) -> Sequence[Any]:
        rows = self._rows
        return [rows.popleft() for _ in range(min(size or self.arraysize, len(rows)))]

    def fetchall(self) -> Sequence[Any]:
        rows = list(self._rows)
        self._rows.clear()
        return rows


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = OneHopCursor  # type: ignore[assignment]


class OneHopDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """SQLAlchemy's aiosqlite DBAPI shim whose connections run each statement in one hop (`module=` of the engine);
    connections come from `async_creator` (above)."""

    def connect(self, *arg: Any, **kw: Any) -> OneHopConnection:
        creator_fn = kw.pop("async_creator_fn", None)
        if creator_fn is None:
            raise TypeError("OneHopDBAPI connects through an async_creator (server.db.sqlite_driver.async_creator)")
        return OneHopConnection(self, await_(creator_fn(*arg, **kw)))


def dbapi() -> OneHopDBAPI:
    return OneHopDBAPI(aiosqlite, sqlite3)
