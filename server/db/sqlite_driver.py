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

No hop at all for a prepared statement (server/db/prepared.py, `run_prepared`) when the connection has nothing in
flight: a write on a connection that holds the write lock never waits for a lock in WAL mode, and a read is run with
the busy timeout at 0 and sent to the thread only if SQLite answers busy; both run on the event loop.
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
import sqlalchemy as sa
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


def _run(conn: sqlite3.Connection, operation: str, parameters: Any, many: bool) -> _Outcome:
    """On the connection's thread: the whole statement, its cursor closed (the statement reset) before returning."""
    cursor = conn.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        return description, (cursor.fetchall() if description else []), cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


def _run_one(conn: sqlite3.Connection, operation: str, parameters: Any) -> _Outcome:
    return _run(conn, operation, parameters, many=False)


def _run_many(conn: sqlite3.Connection, operation: str, seq_of_parameters: Any) -> _Outcome:
    return _run(conn, operation, seq_of_parameters, many=True)


BEGIN_WRITE = "BEGIN IMMEDIATE"  # a writer's BEGIN (configure_sqlite): once it returns, the write lock is held
BUSY_TIMEOUT_MS = 10_000  # how long a statement on a connection's thread waits for a lock (configure_sqlite)
_LOCK_ERRORS = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _read_without_waiting(conn: sqlite3.Connection, operation: str, parameters: Any) -> list[Any]:
    """A read on the event loop that fails at once, instead of sleeping in SQLite's busy handler, when it would
    have to wait for a lock. In WAL mode a reader waits only in rare moments (a recovery, the last connection's
    checkpoint, another process in exclusive locking mode); a read changes nothing, so it is simply run again."""
    conn.execute("PRAGMA busy_timeout=0")
    try:
        return _run_one(conn, operation, parameters)[1]
    finally:
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


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
        adapt: OneHopConnection = self._adapt_connection  # type: ignore[assignment]
        connection: aiosqlite.Connection = adapt._connection  # type: ignore[assignment]
        async with adapt._execute_mutex:
            outcome = await adapt._on_thread(partial(fn, connection._conn, operation, parameters))
        self._keep(outcome)

    def _keep(self, outcome: _Outcome) -> None:
        self.description, rows, self.rowcount, self.lastrowid = outcome
        self._rows = collections.deque(rows)

    def execute(self, operation: str, parameters: Any = None) -> None:
        adapt: OneHopConnection = self._adapt_connection  # type: ignore[assignment]
        try:
            adapt._idle = False
            if _instant(operation) and adapt._quiet():
                # Opens or closes a savepoint, or a snapshot: no lock to wait for, nothing to write. Run here.
                self._keep(_run_one(adapt._connection._conn, operation, parameters))
                return
            if operation.lstrip()[:6].upper() != "SELECT":
                adapt._writes = True
            await_(self._run(_run_one, operation, parameters))
            if operation == BEGIN_WRITE:
                adapt._write_locked = True
        except Exception as error:
            adapt._handle_exception(error)

    def executemany(self, operation: str, seq_of_parameters: Any) -> None:
        adapt: OneHopConnection = self._adapt_connection  # type: ignore[assignment]
        adapt._idle = False
        adapt._writes = True
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


_INSTANT = ("SAVEPOINT ", "RELEASE SAVEPOINT ", "ROLLBACK TO SAVEPOINT ")


def _instant(operation: str) -> bool:
    """Statements that never wait for a lock nor write a page: a deferred BEGIN (a snapshot is taken at the first
    read), and SQLAlchemy's savepoint statements (inside a transaction that holds its locks already)."""
    return operation == "BEGIN" or operation.startswith(_INSTANT)


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    """Each statement one hop to the connection's thread; what cannot wait nor write (`_instant`, the COMMIT or
    ROLLBACK of a transaction that wrote nothing) runs on the event loop, without a hop, when nothing of this
    connection is in flight on its thread (a cancelled statement may still be: then it queues behind it). A ROLLBACK
    right after a COMMIT or ROLLBACK (the pool's reset) is skipped: there is no transaction to end."""

    __slots__ = ("_idle", "_sent", "_write_locked", "_writes")
    _cursor_cls = OneHopCursor  # type: ignore[assignment]

    def __init__(self, dbapi: Any, connection: Any) -> None:
        super().__init__(dbapi, connection)
        self._idle = False  # the last operation was a COMMIT or ROLLBACK that succeeded
        self._writes = False  # the transaction ran something other than a SELECT or an instant statement
        self._write_locked = False  # in a transaction begun with BEGIN IMMEDIATE: it holds the write lock
        self._sent = [0, 0]  # operations queued to the thread (by the loop), finished (by the thread)

    def _quiet(self) -> bool:
        return self._sent[0] == self._sent[1]

    async def run_prepared(self, operation: str, parameters: Any, *, many: bool, reads: bool) -> list[Any]:
        """A statement of server/db/prepared.py (a few rows by index), its rows returned. When nothing of this
        connection is in flight on its thread, it runs on the event loop: a write when the connection holds the
        write lock (it cannot wait for one), a read unless it would have to wait for a lock (then it goes to the
        thread, where the wait stalls nothing else). Otherwise one hop to the thread. sqlite3's errors are raised
        as they are."""
        self._idle = False
        if not reads:
            self._writes = True
        conn: sqlite3.Connection = self._connection._conn
        run = _run_many if many else _run_one
        if self._quiet():
            # in_transaction: an error SQLite answers by rolling back (a full disk) ended the transaction and lock.
            if self._write_locked and conn.in_transaction:
                return run(conn, operation, parameters)[1]
            if reads and not many:
                try:
                    return _read_without_waiting(conn, operation, parameters)
                except sqlite3.OperationalError as error:
                    if error.sqlite_errorcode & 0xFF not in _LOCK_ERRORS:
                        raise
        async with self._execute_mutex:
            outcome: _Outcome = await self._on_thread(partial(run, conn, operation, parameters))
        return outcome[1]

    def _on_thread(self, work: Callable[[], Any]) -> Awaitable[Any]:
        sent = self._sent

        def counted() -> Any:
            try:
                return work()
            finally:
                sent[1] += 1  # only this thread writes it

        sent[0] += 1
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        return connection._execute(counted)

    def _end(self, how: str) -> None:
        self._write_locked = False  # ended, or in doubt: no statement may count on holding the lock any more
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        if not connection._connection:  # closed: as SQLAlchemy's adapter, nothing to end
            return
        if how == "rollback" and self._idle and self._quiet():
            return
        try:
            conn = connection._conn
            end = conn.commit if how == "commit" else conn.rollback
            if not self._writes and self._quiet():
                end()
            else:
                await_(self._on_thread(end))
        except Exception as error:
            self._idle = False
            self._handle_exception(error)
        self._idle, self._writes = True, False

    def commit(self) -> None:
        self._end("commit")

    def rollback(self) -> None:
        self._end("rollback")


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


def plain_savepoints(engine: sa.Engine) -> None:
    """The engine's SAVEPOINT, RELEASE and ROLLBACK TO as plain driver SQL. SQLAlchemy compiles a savepoint clause
    afresh for each statement (it has no cache key); the group-commit writer runs two per unit of work."""
    for method, verb in (("do_savepoint", "SAVEPOINT"), ("do_release_savepoint", "RELEASE SAVEPOINT"),
                         ("do_rollback_to_savepoint", "ROLLBACK TO SAVEPOINT")):
        setattr(engine.dialect, method, partial(_savepoint_sql, verb))


def _savepoint_sql(verb: str, conn: sa.Connection, name: str) -> None:
    if not name.isidentifier():  # SQLAlchemy's own names (sa_savepoint_N) are; anything else is not ours
        raise ValueError(f"unexpected savepoint name {name!r}")
    conn.exec_driver_sql(f"{verb} {name}")
