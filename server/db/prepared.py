"""`Prepared(statement)`: a hot-path statement compiled once per dialect and, on SQLite, run straight on the driver.

Why (issue 13, bench/RESULTS.md): a create-customer runs three small statements (the customer's INSERT, its
event's INSERT, the webhook fan-out's INSERT … SELECT). Through the session, each one paid SQLAlchemy's
execution set-up (the ORM's compile state, the statement cache's key, an execution context, the greenlet hop of the
async adapter) and a hand-off to the connection's thread and back: together about as much CPU as everything else
the request does. A `Prepared` statement pays those once: the SQL text, the order of its parameters, and the
column types' bind and result conversions are worked out on first use for each dialect and kept.

On SQLite (paygate's own driver, server/db/sqlite_driver.py) it runs as one call on the sqlite3 connection, on
the event loop, without a thread hop, when nothing of the connection is in flight on its thread (a statement
prepared here touches a few rows by index, so it holds the loop for microseconds):
- a write when the connection holds the write lock already (a writer's `BEGIN IMMEDIATE` has returned; WAL): it
  never waits for a lock;
- a read with SQLite's busy timeout at 0 for it: in the rare moment a WAL reader would wait for a lock, SQLite
  answers "busy" at once and the read runs again on the connection's thread, where waiting stalls nothing else;
- anything else in one hop to the connection's thread, as every other statement.
The hop was most of a statement's cost (about 0.6 ms of CPU of a 1.2 ms get on the bench machine).
On a PostgreSQL write connection (server/db/pg_pipeline.py) a write is queued and sent with the next statement that
needs an answer, a read sends what is queued and itself in one round trip. On any other connection (a read-only
unit of work's) it is executed through the session as usual.

Either way it runs in the session's transaction (begun first if it is not yet), after the session has flushed what
it holds (as the session's autoflush would), and a driver error is raised as SQLAlchemy's (`IntegrityError`,
`OperationalError`, …), so callers and the RPC pipeline's error mapping see no difference. Only for statements with
plain named parameters (no expanding `IN` lists).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlmodel.ext.asyncio.session import AsyncSession

from server.db import pg_pipeline
from server.db.sqlite_driver import OneHopConnection

_Convert = Callable[[Any], Any] | None
_NO_DEFAULT = object()


class _Plan:
    __slots__ = ("binds", "dialect", "is_read", "keys", "result_types", "results", "sql")

    def __init__(self, sql: str, binds: tuple[tuple[str, _Convert, Any], ...], dialect: Dialect,
                 result_types: tuple[sa.types.TypeEngine[Any], ...], is_read: bool,
                 keys: tuple[str, ...] | None) -> None:
        """`keys`: for a driver taking named parameters, their names in the SQL text, in the order of `binds`."""
        self.sql, self.binds, self.is_read, self.keys = sql, binds, is_read, keys
        self.dialect, self.result_types = dialect, result_types
        # The selected columns' conversions, made on the first rows: psycopg's depend on the types it reports.
        self.results: tuple[_Convert, ...] | None = None

    def args(self, params: Mapping[str, Any]) -> Any:
        """The driver's parameters: a tuple, or a mapping for named parameters."""
        values = _args(self, params)
        return values if self.keys is None else dict(zip(self.keys, values, strict=True))

    def convert(self, rows: Sequence[Sequence[Any]], type_codes: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        """`type_codes`: the driver's type of each column of the rows (psycopg's OIDs), or None (sqlite3)."""
        if self.results is None:
            codes = type_codes or [None] * len(self.result_types)
            results = tuple(type_.result_processor(self.dialect, code)
                            for type_, code in zip(self.result_types, codes, strict=True))
            # Nothing to convert: the rows are used as the driver returns them.
            self.results = results if any(results) else ()
        if self.results:
            convert = self.results
            return [tuple(c(v) if c else v for c, v in zip(convert, row, strict=True)) for row in rows]
        return [tuple(row) for row in rows]


class Prepared:
    """One statement (a `select(...)` of columns, an `insert(table)`, an `update`/`delete` with `bindparam`s),
    compiled once per dialect. Parameters are given by their bind names (for `insert(table)`: the column keys)."""

    def __init__(self, statement: sa.Executable) -> None:
        self.statement = statement
        self.is_read = isinstance(statement, sa.Select)
        self._plans: dict[Dialect, _Plan] = {}
        binds = statement.compile().binds  # type: ignore[attr-defined]
        self._required = frozenset(name for name, bind in binds.items() if bind.required)

    def plan(self, dialect: Dialect) -> _Plan:
        found = self._plans.get(dialect)
        if found is not None:
            return found
        compiled = self.statement.compile(dialect=dialect)  # type: ignore[attr-defined]
        # Positional (SQLite's qmark) or named (psycopg's pyformat): the parameters are a tuple or a mapping.
        names = compiled.positiontup
        named = names is None
        if named:
            names = list(compiled.binds)
        escaped = compiled.escaped_bind_names or {}
        binds: list[tuple[str, _Convert, Any]] = []
        for name in names:
            bind = compiled.binds[name]
            if bind.expanding:
                raise TypeError(f"Prepared: parameter {name!r} is an expanding list")
            # A literal in the statement (`column == "x"`) is a bind with a value: used when not given.
            default = _NO_DEFAULT if bind.required else bind.effective_value
            binds.append((name, bind.type.dialect_impl(dialect).bind_processor(dialect), default))
        result_types: tuple[sa.types.TypeEngine[Any], ...] = ()
        if isinstance(self.statement, sa.Select):
            result_types = tuple(column.type.dialect_impl(dialect) for column in self.statement.selected_columns)
        keys = tuple(escaped.get(name, name) for name in names) if named else None
        found = self._plans[dialect] = _Plan(compiled.string, tuple(binds), dialect, result_types, self.is_read,
                                             keys)
        return found

    async def rows(self, session: AsyncSession, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """A select's rows, as tuples of the selected columns' Python values."""
        return await self._execute(session, params, many=False)

    async def write(self, session: AsyncSession, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
        """Runs the statement once, or once per parameter set of a sequence (one `executemany`)."""
        many = not isinstance(params, Mapping)
        if many and not params:
            return
        await self._execute(session, params, many=many)

    async def _execute(self, session: AsyncSession, params: Any, *, many: bool) -> list[tuple[Any, ...]]:
        if session.sync_session.autoflush and (session.new or session.dirty or session.deleted):
            await session.flush()
        conn = await session.connection()  # begins the session's transaction if it has not begun
        sync = conn.sync_connection
        raw = sync.connection.dbapi_connection  # type: ignore[union-attr]
        if isinstance(raw, OneHopConnection):
            plan = self.plan(conn.dialect)
            args: Any = [plan.args(p) for p in params] if many else plan.args(params)
            try:
                rows = await raw.run_prepared(plan.sql, args, many=many, reads=plan.is_read)
            except sqlite3.Error as e:
                raise sa.exc.DBAPIError.instance(plan.sql, None, e, sqlite3.Error, hide_parameters=True,
                                                 dialect=conn.dialect) from e
            return plan.convert(rows)
        if sync is not None and pg_pipeline.applies(sync):
            plan = self.plan(conn.dialect)
            args = [plan.args(p) for p in params] if many else plan.args(params)
            if not plan.is_read:
                pg_pipeline.queue(sync, plan.sql, args, many=many)
                return []
            return plan.convert(*await pg_pipeline.send(sync, (plan.sql, args)))
        for given in (params if many else [params]):
            missing = self._required - given.keys()
            if missing:
                raise TypeError(f"Prepared: no value for parameter {min(missing)!r}")
        result = await session.exec(self.statement, params=params)  # type: ignore[call-overload]
        return [tuple(row) for row in result] if self.is_read else []


def _args(plan: _Plan, params: Mapping[str, Any]) -> tuple[Any, ...]:
    args = []
    for name, convert, default in plan.binds:
        value = params.get(name, default)
        if value is _NO_DEFAULT:
            raise TypeError(f"Prepared: no value for parameter {name!r}")
        args.append(convert(value) if convert else value)
    return tuple(args)
