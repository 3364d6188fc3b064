"""Engine, sessions and the unit of work.

Transactions are short and hold no network I/O. On SQLite every transaction starts with BEGIN IMMEDIATE so that
two writers queue on the busy timeout instead of failing when a read lock is upgraded.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from server.errors import DomainError


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
        # Let SQLAlchemy, not the driver, issue BEGIN (see do_begin below).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=10000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        # Writers take the write lock up front; readers read a snapshot and never wait for writers (WAL).
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")


class Database:
    """One per process. `transaction()` is the unit of work: it commits on success and rolls back otherwise."""

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        ensure_sqlite_dir(url)
        self.url = url
        self.dialect = _split(url)[0]
        kwargs: dict[str, Any] = {}
        if self.dialect == "postgresql":
            kwargs.update(pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)
        self.engine: AsyncEngine = create_async_engine(async_url(url), **kwargs)
        self._reader: AsyncEngine = self.engine
        self._write_lock: asyncio.Lock | None = None
        if self.dialect == "sqlite":
            self._write_lock = asyncio.Lock()
            configure_sqlite(self.engine.sync_engine)
            self._reader = create_async_engine(async_url(url))
            configure_sqlite(self._reader.sync_engine, writer=False)
        self._sessions = async_sessionmaker(self.engine, class_=AsyncSession, expire_on_commit=False)
        self._read_sessions = async_sessionmaker(self._reader, class_=AsyncSession, expire_on_commit=False)

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        if self._write_lock is None:
            async with self._transaction() as session:
                yield session
            return
        # SQLite has one writer at a time. Writers of this process queue here in order, instead of sleeping in
        # SQLite's busy handler; the busy timeout still arbitrates between processes.
        async with self._write_lock, self._transaction() as session:
            yield session

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncSession]:
        kept: DomainError | None = None
        async with self._sessions() as session:
            async with session.begin():
                try:
                    yield session
                except DomainError as e:
                    if not e.keep_changes:
                        raise
                    kept = e
            if kept is not None:
                raise kept

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read-only unit of work: a consistent snapshot that never queues behind writers."""
        async with self._read_sessions() as session, session.begin():
            yield session

    async def ping(self) -> None:
        async with self.engine.connect() as conn:
            await conn.execute(sa.text("SELECT 1"))

    async def close(self) -> None:
        await self.engine.dispose()
        if self._reader is not self.engine:
            await self._reader.dispose()
