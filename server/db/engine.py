"""Engine, sessions and the unit of work.

Transactions are short and hold no network I/O. On SQLite every write transaction starts with BEGIN IMMEDIATE so
that two processes' writers queue on the busy timeout instead of failing when a read lock is upgraded; within one
process, writes go through one writer that commits them in groups (server/db/group_commit.py).

A unit of work ends, whatever happens to the task that runs it: a gRPC call cancelled by its client's deadline
interrupts its task at any await, yet its transaction must still commit or roll back, the process's write lock
must be released, and a pooled connection interrupted mid-statement is discarded rather than returned to the pool
(an open transaction on a pooled connection would hold SQLite's write lock, or PostgreSQL's row locks, forever).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import Clock, SystemClock
from server.db import aggregates, pg_pipeline, sqlite_driver
from server.db.group_commit import GroupWriter
from server.db.postgres_pool import postgres_engine
from server.errors import DomainError

log = logging.getLogger("paygate.db")
T = TypeVar("T")

# Run inside every write transaction of the current context, just before it commits, in that transaction: how the
# idempotency pipeline records "this call's side effect is committed" atomically with the side effect.
BeforeCommit = Callable[[AsyncSession], Awaitable[None]]
before_commit: ContextVar[BeforeCommit | None] = ContextVar("before_commit", default=None)


Hook = Callable[..., Awaitable[None]]


class Hooks:
    """What other packages run inside a unit of work when something happens in it, by topic (for example
    `server.chains.hooks.TRANSFER_CHANGED`, `server.events.outbox.EVENT_RECORDED`). One per Database, so one per
    runtime: filled at start-up by the packages' `register(runtime)` (server/runtime.py), only read afterwards."""

    def __init__(self) -> None:
        self._by_topic: dict[str, list[Hook]] = {}

    def add(self, topic: str, hook: Hook) -> None:
        self._by_topic.setdefault(topic, []).append(hook)

    def of(self, topic: str) -> tuple[Hook, ...]:
        return tuple(self._by_topic.get(topic, ()))


def hooks_of(session: AsyncSession) -> Hooks:
    """The hooks of the Database that opened `session`."""
    hooks = session.info.get("hooks")
    return hooks if isinstance(hooks, Hooks) else Hooks()


def _split(url: str) -> tuple[str, str]:
    scheme, _, rest = url.partition("://")
    scheme = scheme.split("+")[0]
    return ("postgresql" if scheme == "postgres" else scheme), rest


def async_url(url: str) -> str:
    scheme, rest = _split(url)
    return f"sqlite+aiosqlite://{rest}" if scheme == "sqlite" else f"postgresql+psycopg://{rest}"


def sync_url(url: str) -> str:
    scheme, rest = _split(url)
    return f"sqlite://{rest}" if scheme == "sqlite" else f"postgresql+psycopg://{rest}"


def ensure_sqlite_dir(url: str) -> None:
    scheme, rest = _split(url)
    if scheme == "sqlite" and rest.startswith("/") and rest != "/:memory:":
        Path(rest[1:]).parent.mkdir(parents=True, exist_ok=True)


def configure_sqlite(engine: sa.Engine, *, writer: bool = True) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        if isinstance(dbapi_conn, sqlite3.Connection):  # a synchronous engine (migrations); aiosqlite's: the driver
            aggregates.register(dbapi_conn)
        # Let SQLAlchemy, not the driver, issue BEGIN (see do_begin below).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute(f"PRAGMA busy_timeout={sqlite_driver.BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        # Writers take the write lock up front; readers read a snapshot and never wait for writers (WAL).
        conn.exec_driver_sql(sqlite_driver.BEGIN_WRITE if writer else "BEGIN")


# In the `info` of a read-only unit of work's session (`Database.read`): what it loads is never written back.
READ_ONLY = "read_only"


class Database:
    """One per process. `transaction()` is the unit of work: it commits on success and rolls back otherwise."""

    def __init__(self, url: str, *, pool_size: int = 10, group_commit: bool = True,
                 clock: Clock | None = None, transaction_pooling: bool = False) -> None:
        """`group_commit` (SQLite only): write units of work share commits (server/db/group_commit.py); when
        False each commits on its own, serialised by a lock. `clock`: the runtime's, carried by every session
        handed out (`server.clock.now_of`), so rows are stamped with the same time the runtime's jobs compare."""
        ensure_sqlite_dir(url)
        self.url = url
        self.transaction_pooling = transaction_pooling  # PostgreSQL behind a pooler in transaction mode
        self.hooks = Hooks()
        self.clock: Clock = clock or SystemClock()
        self.dialect = _split(url)[0]
        # Statements' parameters never reach an error message or a log (they hold customers' data and secrets).
        kwargs: dict[str, Any] = {"hide_parameters": True}
        if self.dialect == "postgresql":
            # 10 kept, as before, and 5 for bursts (was 10): many processes share one server's max_connections
            # (a full test run hit "too many clients" with 15 kept).
            # Autocommit at the driver: paygate sends BEGIN itself, with the unit of work's first statements
            # (server/db/pg_pipeline.py).
            self.engine: AsyncEngine = postgres_engine(async_url(url), name="paygate", pool_size=pool_size,
                                                       max_overflow=5, isolation_level="AUTOCOMMIT",
                                                       transaction_pooling=transaction_pooling)
            pg_pipeline.install(self.engine)
        else:
            # Connections that roll back before they close: a discarded one never keeps the write lock.
            # Each statement one call on the connection's thread (server/db/sqlite_driver.py, issue 13).
            kwargs.update(async_creator=sqlite_driver.async_creator(async_url(url)), module=sqlite_driver.dbapi())
            self.engine = create_async_engine(async_url(url), **kwargs)
        # Readers see one snapshot for the whole unit of work: under PostgreSQL's default READ COMMITTED an intent
        # read before a watcher's commit and its transfers read after it would disagree (SQLite's BEGIN is a
        # snapshot already). A read-only REPEATABLE READ transaction never fails to serialize. On PostgreSQL paygate
        # sends that BEGIN itself, with the unit of work's first read (server/db/pg_pipeline.py).
        self._reader: AsyncEngine = (pg_pipeline.with_begin(self.engine, pg_pipeline.BEGIN_SNAPSHOT)
                                     if self.dialect == "postgresql"
                                     else self.engine.execution_options(isolation_level="REPEATABLE READ"))
        info = {"hooks": self.hooks, "clock": self.clock}
        # SQLite has one writer at a time: this process's write units of work go through one writer that commits
        # them in groups (server/db/group_commit.py); `self.engine` stays for DDL, migrations and health checks.
        self._writer: GroupWriter | None = None
        self._write_lock: asyncio.Lock | None = None
        if self.dialect == "sqlite":
            configure_sqlite(self.engine.sync_engine)
            if group_commit:
                self._writer = GroupWriter(async_url(url), kwargs, info)
            else:
                self._write_lock = asyncio.Lock()  # one writer at a time, queued here rather than in busy_timeout
            self._reader = create_async_engine(async_url(url), **kwargs)
            configure_sqlite(self._reader.sync_engine, writer=False)
        self._sessions = async_sessionmaker(self.engine, class_=AsyncSession, expire_on_commit=False, info=info)
        self._read_sessions = async_sessionmaker(self._reader, class_=AsyncSession, expire_on_commit=False,
                                                 info={**info, READ_ONLY: True})

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    def transaction(self) -> AbstractAsyncContextManager[AsyncSession]:
        """The write unit of work: commits on success (the caller resumes only once it is committed), rolls back
        otherwise, whatever happens to the calling task."""
        if self._writer is not None:
            return self._writer.transaction()
        return self._pooled_transaction()

    @asynccontextmanager
    async def _pooled_transaction(self) -> AsyncIterator[AsyncSession]:
        # Without group commit, SQLite writers of this process queue on a lock instead of sleeping in SQLite's
        # busy handler; it is released by the end of the unit of work (`_end`), which runs even when this task is
        # cancelled.
        lock = self._write_lock
        if lock is not None:
            await lock.acquire()
        session = self._sessions()
        kept: DomainError | None = None
        try:
            try:
                yield session
            except DomainError as e:
                if not e.keep_changes:
                    raise
                kept = e
            hook = before_commit.get()
            if hook is not None:
                await hook(session)
        except BaseException as e:
            # An Exception left the connection idle: roll back. Cancellation may have interrupted a statement
            # in flight: the connection is in doubt and is discarded (which also ends its transaction).
            await run_to_end(_end(session, "rollback" if isinstance(e, Exception) else "discard", lock))
            raise
        await run_to_end(_end(session, "commit", lock))
        if kept is not None:
            raise kept

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read-only unit of work: a consistent snapshot that never queues behind writers."""
        session = self._read_sessions()
        try:
            yield session
        except BaseException as e:
            await run_to_end(_end(session, "rollback" if isinstance(e, Exception) else "discard", None))
            raise
        await run_to_end(_end(session, "commit", None))  # ends the snapshot; unlike a rollback, expires nothing

    async def ping(self) -> None:
        async with self.engine.connect() as conn:
            await conn.execute(sa.text("SELECT 1"))

    async def close(self) -> None:
        if self._writer is not None:
            await self._writer.close()
        await self.engine.dispose()
        if self.dialect == "sqlite":
            await self._reader.dispose()


async def _end(session: AsyncSession, how: str, lock: asyncio.Lock | None) -> None:
    """Commits, rolls back or discards the session's transaction, closes it, then releases the write lock.
    A failure to commit or roll back leaves the connection in doubt: it is discarded, never pooled again."""
    try:
        if how == "commit":
            await session.commit()
        elif how == "rollback":
            await session.rollback()
        else:
            await session.invalidate()
    except BaseException:
        with suppress(Exception):
            await session.invalidate()
        raise
    finally:
        try:
            with suppress(Exception):
                await session.close()
        finally:
            if lock is not None:
                lock.release()


_running: set[asyncio.Task[Any]] = set()  # strong references: a task awaited only through a shield may be collected


async def run_to_end(work: Coroutine[Any, Any, T]) -> T:
    """Runs `work` to its end even if the awaiting task is cancelled meanwhile: the cancellation reaches the
    awaiting task at once, while `work` goes on in its own task (with a copy of the current context)."""
    task = asyncio.ensure_future(work)
    _running.add(task)
    task.add_done_callback(_ended)
    return await asyncio.shield(task)


def spawn(work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Runs `work` in a task of its own, referenced until it ends."""
    task = asyncio.ensure_future(work)
    _running.add(task)
    task.add_done_callback(_ended)
    return task


def _ended(task: asyncio.Task[Any]) -> None:
    _running.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        # The awaiting task saw it unless it had been cancelled; this keeps the error from vanishing silently.
        log.debug("work ended with an error after its caller left", extra={"error": type(error).__name__})
