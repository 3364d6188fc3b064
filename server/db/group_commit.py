"""Group commit on SQLite (issue 13 item 2, DESIGN §13): one writer connection runs the process's write units of
work one after another inside a shared transaction, each in a SAVEPOINT of its own, and commits them together
when no other writer is waiting (or the group is full). Every unit is answered only after the COMMIT that
contains it has returned; a failed COMMIT fails every unit of its group. The `synchronous` pragma is unchanged.

A unit that fails rolls back to its savepoint: the group's other units are untouched. A unit cancelled mid-statement
(a gRPC deadline) leaves its statement running on the connection's thread; aiosqlite runs operations in order, so
the ROLLBACK TO queued after it undoes whatever it did, and the connection stays usable; if the connection's
savepoints are then not exactly as expected, the group is discarded rather than trusted. That is why a cancellation
on this connection is not treated as a disconnect (`_keep_connection_on_cancel`): discarding it would discard the
other units of the group. Anything unexpected on the writer's own statements (BEGIN, SAVEPOINT, RELEASE, ROLLBACK TO,
COMMIT) discards the connection, which rolls the group back (server/db/sqlite_driver.py), and fails the group.

Every step that ends a unit or a group runs to its end even if the task that started it is cancelled (`run_to_end`),
and the writer's lock is released only then.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncTransaction, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from server.db.sqlite_driver import plain_savepoints
from server.errors import DomainError

log = logging.getLogger("paygate.db")


def _keep_connection_on_cancel(ctx: ExceptionContext) -> None:
    # SQLAlchemy invalidates a connection whose statement was interrupted by a cancellation. Here the statement
    # still runs to its end on aiosqlite's thread and the next operation is queued behind it: nothing is in doubt.
    if isinstance(ctx.original_exception, asyncio.CancelledError):
        ctx.is_disconnect = False


class _Group:
    """The units of work of one shared transaction; `committed` resolves once its COMMIT has returned."""

    def __init__(self) -> None:
        self.committed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.units = 0

    def fail(self, error: BaseException) -> None:
        if not self.committed.done():
            self.committed.set_exception(error)
            self.committed.exception()  # retrieved: a group whose units all left is not an "unretrieved" error


class GroupWriter:
    """The SQLite writer of one process. `transaction()` has the contract of `Database.transaction()`."""

    MAX_UNITS = 64  # bounds how long a group holds SQLite's write lock against other processes

    def __init__(self, url: str, engine_kwargs: dict[str, Any], info: dict[str, Any]) -> None:
        from server.db.engine import configure_sqlite  # engine imports this module

        self.engine = create_async_engine(url, poolclass=sa.pool.NullPool, **engine_kwargs)
        configure_sqlite(self.engine.sync_engine)
        plain_savepoints(self.engine.sync_engine)  # two per unit of work
        event.listen(self.engine.sync_engine, "handle_error", _keep_connection_on_cancel)
        # A unit's session takes its savepoint as its transaction ("control_fully" on a connection in a nested
        # transaction): its commit releases the savepoint, its rollback (a failed flush) rolls back to it, and
        # neither touches the group's transaction.
        self._sessions = async_sessionmaker(class_=AsyncSession, expire_on_commit=False, info=info,
                                            join_transaction_mode="control_fully")
        self._lock = asyncio.Lock()
        self._waiting = 0  # writers queued on the lock (the flusher included)
        self._conn: AsyncConnection | None = None
        self._tx: AsyncTransaction | None = None
        self._group: _Group | None = None
        self._flush_queued = False
        self._serial = 0

    async def _acquire(self) -> None:
        self._waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self._waiting -= 1

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        from server.db.engine import before_commit, run_to_end

        await self._acquire()
        opening = asyncio.ensure_future(self._open_unit())
        try:
            conn, group, _savepoint = await asyncio.shield(opening)
        except BaseException:
            await run_to_end(self._end_unit(opening, None, ok=False))
            raise
        session = self._sessions(bind=conn)
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
        except BaseException:
            await run_to_end(self._end_unit(opening, session, ok=False))
            raise
        await run_to_end(self._end_unit(opening, session, ok=True))
        await asyncio.shield(group.committed)  # answered only once the group's COMMIT has returned
        if kept is not None:
            raise kept

    async def _open_unit(self) -> tuple[AsyncConnection, _Group, AsyncTransaction]:
        """Under the lock: joins the open group, or begins one, in a savepoint of the unit's own."""
        try:
            if self._conn is None:
                self._conn = await self.engine.connect()
            if self._group is None:
                self._tx = await self._conn.begin()  # BEGIN IMMEDIATE (configure_sqlite)
                self._group = _Group()
            savepoint = await self._conn.begin_nested()
        except BaseException as e:
            await self._discard(e)
            raise
        return self._conn, self._group, savepoint

    async def _end_unit(self, opening: asyncio.Future[tuple[AsyncConnection, _Group, AsyncTransaction]],
                        session: AsyncSession | None, *, ok: bool) -> None:
        """Under the lock, which it releases: keeps (RELEASE) or undoes (ROLLBACK TO) the unit, then commits the
        group unless another writer is waiting to join it. Raises the unit's own error (a failed flush)."""
        error: BaseException | None = None
        try:
            try:
                conn, group, savepoint = await opening
            except BaseException:
                return  # the opening failed and already discarded what it had begun
            try:
                if session is not None and ok:
                    try:
                        await session.commit()  # flushes, then releases the savepoint if the session used it
                    except Exception as e:
                        error, ok = e, False
                if session is not None:
                    await session.close()  # rolls back to the savepoint unless committed
                if savepoint.is_active:  # the session never used the connection
                    await (savepoint.commit() if ok else savepoint.rollback())
                if conn.in_nested_transaction() or not conn.in_transaction():
                    raise RuntimeError("the writer's savepoints are not as expected")
            except BaseException as e:
                await self._discard(e)  # nothing of the group can be trusted: it is rolled back and failed
                error = error or e
                return
            if ok:
                group.units += 1
            if self._waiting and group.units < self.MAX_UNITS:
                self._queue_flush()  # a writer is queued: it joins this group, the flusher commits after it
            else:
                await self._commit()
        finally:
            self._lock.release()
            if error is not None:
                raise error

    def _queue_flush(self) -> None:
        from server.db.engine import spawn

        if not self._flush_queued:
            self._flush_queued = True
            spawn(self._flush())

    async def _flush(self) -> None:
        """Queued behind the writers waiting at the time: commits the group they joined."""
        await self._acquire()
        try:
            self._flush_queued = False
            await self._commit()
        finally:
            self._lock.release()

    async def _commit(self) -> None:
        group, tx = self._group, self._tx
        if group is None or tx is None:
            return
        try:
            await tx.commit()
        except BaseException as e:
            await self._discard(e)
            return
        self._group, self._tx = None, None
        if not group.committed.done():
            group.committed.set_result(None)

    async def _discard(self, error: BaseException) -> None:
        """The writer's connection is in doubt: closed (which rolls its transaction back), its group failed."""
        group, conn = self._group, self._conn
        self._group, self._tx, self._conn = None, None, None
        if group is not None:
            group.fail(error if isinstance(error, Exception) else RuntimeError("the group's writer was cancelled"))
        if conn is not None:
            with suppress(Exception):
                await conn.invalidate()
            with suppress(Exception):
                await conn.close()

    async def close(self) -> None:
        """Commits the open group, then closes the connection."""
        await self._acquire()
        try:
            await self._commit()
            if self._conn is not None:
                with suppress(Exception):
                    await self._conn.close()
                self._conn = None
        finally:
            self._lock.release()
        await self.engine.dispose()
