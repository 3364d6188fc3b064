"""PostgreSQL: a write unit of work's BEGIN and its prepared writes travel with its next statement that needs an
answer, in one round trip (psycopg's pipeline mode).

Why (issue 13, bench/RESULTS.md): a create-customer on PostgreSQL was six round trips (the key look-up, BEGIN, two
INSERTs, the endpoints' SELECT, COMMIT), and each round trip's wake-ups of the server's backend and of paygate cost
more than its statement. Nothing in BEGIN or in an INSERT whose result nobody reads needs an answer before the next
statement is sent. Now the unit of work of a create is one round trip (BEGIN, the customer's and its event's INSERTs,
the webhook fan-out's INSERT … SELECT, COMMIT) after the key look-up.

psycopg sends its own BEGIN alone and waits for it, even in pipeline mode (it syncs to learn the transaction's
status). So the write engine's connections are in autocommit at the driver, and paygate begins the server's
transaction itself, by one rule applied before every statement on such a connection: if SQLAlchemy has begun a
transaction and the server has not (its status idle and nothing queued), BEGIN goes first. Every unit of work is a
transaction, as before; the rule is checked against the server's own status, never assumed.

- `Prepared.write` queues its statement (`queue`), after a BEGIN when one is due.
- `Prepared.rows` sends what is queued and itself in one pipeline (`send`).
- Any other statement (the ORM's flush, `session.exec`, a SAVEPOINT) sends what is queued first
  (`before_cursor_execute`); the COMMIT goes in the same pipeline as what is still queued (`commit`); a rollback
  drops the queue (it was never sent, or the server rolls it back).

A queued write's error (a unique or foreign-key violation) is raised by the statement that sends it, or by the
commit, as SQLAlchemy's exception (`IntegrityError`, …), in the same unit of work, which then rolls back. Callers
catch those around a unit of work (server/idempotency/store.py, server/treasury/approvals/service.py), never around one
write. A task cancelled while a pipeline is in flight leaves its connection in doubt; the unit of work discards it
(server/db/engine.py), as for any statement interrupted.

Read-only units of work begin with `BEGIN_SNAPSHOT` (REPEATABLE READ: one snapshot for the whole unit of work), by
the same rule, so a get's BEGIN travels with its first read.
"""

from __future__ import annotations

from typing import Any

import psycopg
import sqlalchemy as sa
from psycopg import pq
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import await_

_QUEUE = "paygate_queued"  # in the pooled connection's info: what waits for the next send
_ON = "paygate_pipeline"  # an execution option set by `install` on the engine, inherited by engines derived from it
_BEGIN_OPTION = "paygate_begin"  # an execution option: the BEGIN of the engine's units of work
BEGIN_SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ"

Queued = tuple[str, Any, bool]  # SQL, parameters (a mapping, or a sequence of them when "many"), many


def driver_of(conn: sa.Connection) -> Any:
    """The psycopg `AsyncConnection` under a SQLAlchemy connection."""
    return conn.connection.driver_connection


def applies(conn: sa.Connection) -> bool:
    """True on a connection of an engine set up by `install`. Marked on the engine, not on the pooled connection,
    whose info the pool clears when it reconnects: a connection of such an engine is never left in autocommit
    without the BEGIN rule."""
    return (not conn.invalidated and bool(conn.get_execution_options().get(_ON))
            and bool(driver_of(conn).autocommit))


def _queued(conn: sa.Connection) -> list[Queued]:
    found: list[Queued] = conn.info.setdefault(_QUEUE, [])
    return found


def with_begin(engine: AsyncEngine, begin: str) -> AsyncEngine:
    """The engine, its units of work begun with `begin` (`BEGIN_SNAPSHOT`: read-only units of work)."""
    return engine.execution_options(**{_BEGIN_OPTION: begin})


def _begin_due(conn: sa.Connection, driver: Any, queued: list[Queued]) -> bool:
    return (not queued and conn.in_transaction()
            and driver.pgconn.transaction_status == pq.TransactionStatus.IDLE)


def _begin(conn: sa.Connection) -> Queued:
    return (conn.get_execution_options().get(_BEGIN_OPTION, "BEGIN"), None, False)


def queue(conn: sa.Connection, sql: str, params: Any, *, many: bool = False) -> None:
    """Sent with the connection's next statement, or its commit."""
    queued = _queued(conn)
    if _begin_due(conn, driver_of(conn), queued):
        queued.append(_begin(conn))
    queued.append((sql, params, many))


async def send(conn: sa.Connection,
               then: tuple[str, Any] | None = None) -> tuple[list[tuple[Any, ...]], list[int] | None]:
    """Sends what is queued (after a BEGIN when one is due), then `then`, in one round trip. Returns the rows of
    `then` and the type (OID) of each of their columns."""
    driver = driver_of(conn)
    queued = _queued(conn)
    statements = [_begin(conn)] if _begin_due(conn, driver, queued) else []
    statements += queued
    queued.clear()
    if then is not None:
        statements.append((then[0], then[1], False))
    cursor = await _send(conn, driver, statements)
    if then is None:
        return [], None
    return list(await cursor.fetchall()), [column.type_code for column in cursor.description or ()]


async def commit(conn: sa.Connection) -> None:
    """What is still queued, and the COMMIT, in one round trip. Nothing queued: psycopg's own commit does it."""
    queued = _queued(conn)
    if not queued:
        return
    statements = [*queued, ("COMMIT", None, False)]
    queued.clear()
    await _send(conn, driver_of(conn), statements)


async def _send(conn: sa.Connection, driver: Any, statements: list[Queued]) -> Any:
    """The cursor of the last statement, its results received."""
    if not statements:
        return None
    try:
        if len(statements) == 1:  # nothing to gain from a pipeline, whose end costs a Sync of its own
            cursor = driver.cursor()
            await _execute(cursor, statements[0])
            return cursor
        first: psycopg.Error | None = None
        try:
            async with driver.pipeline():
                try:
                    writes = driver.cursor()
                    for statement in statements[:-1]:
                        await _execute(writes, statement)
                    cursor = driver.cursor()
                    await _execute(cursor, statements[-1])
                except psycopg.Error as e:
                    # Kept, not raised through the block: the pipeline's end then fails too ("pipeline aborted"),
                    # and psycopg would log that second error as a warning beside the real one.
                    first = e
        except psycopg.Error as e:
            first = first or e
        if first is not None:
            raise first
        return cursor
    except psycopg.Error as e:
        # Any of them may have failed (the server stops at the first error): the error names them all.
        sql = "; ".join(statement[0] for statement in statements)
        raise sa.exc.DBAPIError.instance(sql, None, e, psycopg.Error, hide_parameters=True,
                                         dialect=conn.dialect) from e


async def _execute(cursor: Any, statement: Queued) -> None:
    sql, params, many = statement
    if many:
        await cursor.executemany(sql, params)
    else:
        await cursor.execute(sql, params)


def install(engine: AsyncEngine) -> None:
    """Sets the engine's connections to the rule above. The engine must be in driver autocommit
    (`isolation_level="AUTOCOMMIT"`); engines derived from it with another isolation level are left alone."""
    engine.update_execution_options(**{_ON: True})
    sync = engine.sync_engine

    @event.listens_for(sync, "before_cursor_execute")
    def _before(conn: sa.Connection, *_: Any) -> None:
        if applies(conn):
            await_(send(conn))

    @event.listens_for(sync, "commit")
    def _commit(conn: sa.Connection) -> None:
        # The commit itself is then psycopg's no-op on an idle connection.
        if applies(conn):
            await_(commit(conn))

    @event.listens_for(sync, "rollback")
    def _rollback(conn: sa.Connection) -> None:
        # An invalidated connection has no record left to hold a queue (and asking for it would reconnect).
        if not conn.invalidated:
            conn.info.pop(_QUEUE, None)

    @event.listens_for(sync.pool, "checkin")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info.pop(_QUEUE, None)
