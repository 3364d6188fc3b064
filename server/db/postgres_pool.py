"""PostgreSQL connection pools: each named in `pg_stat_activity`, sized so that they do not churn, and a pooled
connection pinged only when it has sat idle.

A process has three pools on the database: the units of work (`paygate`), the API-key look-up (`paygate-keys`) and
the rate-limit buckets (`paygate-ratelimit`). Each one's connections carry its name as `application_name`, so an
operator can tell them apart in `pg_stat_activity`.

Why not SQLAlchemy's `pool_pre_ping`: it sends a `SELECT 1` on every checkout, a round trip before every unit of
work, every key look-up and every rate-limit lease. Under wrk on PostgreSQL that was 16 % of create-customer's
throughput (bench/RESULTS.md, 2026-11-27 fourth session). A connection returned to the pool less than
`IDLE_SECONDS` ago was alive then, so it is handed out without a ping. HikariCP skips its own check the same way
(`aliveBypassWindowMs`, 500 ms). If the server restarts within that second, the next statement on such a connection
fails with a disconnect; SQLAlchemy then invalidates the pool, as it does for any connection lost while in use,
and later checkouts connect afresh. A connection idle for longer is pinged first, and a dead one is replaced before
anyone uses it.

Why the sizes are what they are: a QueuePool keeps `pool_size` connections and closes every overflow connection on
return. A pool smaller than the process's usual concurrency opens and closes a PostgreSQL backend (a fork) for a
large share of checkouts. The key look-up's old pool of 2 + 3 opened 2,463 backends in one minute of wrk against two
workers (bench/RESULTS.md). Pools are filled lazily, so an idle process holds only what it has used.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

IDLE_SECONDS = 1.0
_RETURNED_AT = "paygate_returned_at"


def postgres_engine(async_url: str, *, name: str, pool_size: int, max_overflow: int,
                    options: str = "", transaction_pooling: bool = False, **kwargs: Any) -> AsyncEngine:
    """An async engine on PostgreSQL whose connections are named `name`; `options` are server settings for its
    connections only (libpq `options`, e.g. `-c synchronous_commit=off`).

    `transaction_pooling`: the URL is a pooler's that gives each transaction whichever server connection is free
    (PgBouncer, pool_mode = transaction). psycopg prepares a statement on the server after its fifth run, by name,
    and the next run may reach a server connection that has no such statement, or one of another client by that
    name: nothing is prepared. `options` are not sent: a setting made at connect would stay on a server connection
    that others get next (PgBouncer refuses the parameter anyway), so those connections do without it."""
    connect_args: dict[str, Any] = {"application_name": name}
    if transaction_pooling:
        connect_args["prepare_threshold"] = None
    elif options:
        connect_args["options"] = options
    # Statements' parameters never reach an error message or a log (they hold customers' data and secrets).
    engine = create_async_engine(async_url, pool_size=pool_size, max_overflow=max_overflow, hide_parameters=True,
                                 connect_args=connect_args, **kwargs)
    ping_when_idle(engine)
    return engine


def ping_when_idle(engine: AsyncEngine, idle_seconds: float = IDLE_SECONDS) -> None:
    """Pings a connection on checkout only if it was returned `idle_seconds` or more ago; a dead one invalidates
    the pool (a server restart closed its siblings too) and the checkout gets a new connection."""
    pool = engine.sync_engine.pool
    dialect = engine.sync_engine.dialect

    def returned(_dbapi_connection: Any, record: Any) -> None:
        record.info[_RETURNED_AT] = time.monotonic()

    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        at = record.info.get(_RETURNED_AT)
        if at is None or time.monotonic() - at < idle_seconds:
            return  # new (it just connected) or used within the window
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as err:
            if dialect.is_disconnect(err, dbapi_connection, None):
                raise exc.InvalidatePoolError(f"pooled connection found dead after {idle_seconds:g} s idle") \
                    from err
            raise

    event.listen(pool, "checkin", returned)
    event.listen(pool, "checkout", checked_out)
