"""Token buckets: `take` spends one token of each named bucket and answers how long to wait when any is empty.

`Limit(rate, burst)`: `burst` tokens at most, refilled at `rate` per second. A denied take spends nothing.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Protocol

import sqlalchemy as sa

from server.db import Database
from server.db.engine import async_url
from server.db.postgres_pool import postgres_engine


@dataclass(frozen=True)
class Limit:
    # Requests per second and token counts, never money: float is exact enough for a token bucket.
    rate: float
    burst: int


def wait_seconds(tokens: float, limit: Limit) -> int:
    """Whole seconds until one token is back: what Retry-After says."""
    return max(1, math.ceil((1 - tokens) / limit.rate))


class Buckets(Protocol):
    async def take(self, wanted: list[tuple[str, Limit]]) -> int:
        """0 when every bucket gave a token, else the seconds to wait for the slowest one."""
        ...

    async def close(self) -> None: ...


class MemoryBuckets:
    """One process's buckets (SQLite deployments run one process)."""

    MAX_BUCKETS = 100_000

    def __init__(self) -> None:
        self._state: dict[str, tuple[float, float]] = {}

    async def take(self, wanted: list[tuple[str, Limit]]) -> int:
        now = time.monotonic()
        wait = 0
        for name, limit in wanted:
            tokens, then = self._state.get(name, (float(limit.burst), now))
            tokens = min(float(limit.burst), tokens + (now - then) * limit.rate)
            if tokens >= 1:
                tokens -= 1
            else:
                wait = max(wait, wait_seconds(tokens, limit))
            self._state[name] = (tokens, now)
        if len(self._state) > self.MAX_BUCKETS:
            self._state.clear()  # every bucket starts full again: a rare, harmless reset that bounds memory
        return wait

    async def close(self) -> None:
        self._state.clear()


def lease_size(limit: Limit) -> int:
    """Tokens a process takes from a shared bucket at once: a tenth of the burst and of a second's rate, at least 1.

    Small limits stay exact (1 token per take); at the default 100/s, burst 200, a take leases up to 10 tokens, so
    a busy key costs one UPSERT per 10 requests instead of 10 UPSERTs queueing on one row; with N processes a key may
    get N x 10 requests more than its burst, at most. The SQL computes the same value.
    """
    return max(1, min(limit.burst // 10, int(limit.rate // 10)))


# Leftover leased tokens are kept this long for the process's next requests of the bucket. They were debited from the
# shared bucket, so using them later never exceeds the budget by more than one lease per process; dropping them after
# an idle minute only bounds memory.
LEASE_SECONDS = 60.0


# One round trip: every bucket of the request is refilled, debited by up to one lease and read back by one
# statement, atomically per row, on the database's clock (so that workers on several hosts agree). SET expressions
# see the old row; `excluded` holds the rate and burst in force. `granted` is what this take got (0: refused).
_AVAILABLE = "LEAST(excluded.burst, b.tokens + (excluded.updated_at - b.updated_at) * excluded.rate)"
_LEASE = "GREATEST(1, LEAST(FLOOR(excluded.burst / 10), FLOOR(excluded.rate / 10)))"
_GRANT = f"CASE WHEN {_AVAILABLE} >= 1 THEN LEAST({_LEASE}, FLOOR({_AVAILABLE})) ELSE 0 END"
_TAKE = f"""
INSERT INTO rate_limit_buckets AS b (bucket, tokens, updated_at, granted, rate, burst)
SELECT w.bucket, w.burst - w.lease, EXTRACT(EPOCH FROM clock_timestamp()), w.lease, w.rate, w.burst
FROM unnest(CAST(:buckets AS text[]), CAST(:rates AS float8[]), CAST(:bursts AS float8[]),
            CAST(:leases AS float8[])) AS w(bucket, rate, burst, lease)
ORDER BY w.bucket
ON CONFLICT (bucket) DO UPDATE SET
  tokens = {_AVAILABLE} - {_GRANT},
  granted = {_GRANT},
  updated_at = excluded.updated_at, rate = excluded.rate, burst = excluded.burst
RETURNING b.bucket, b.tokens, b.granted
"""
_PRUNE = "DELETE FROM rate_limit_buckets WHERE updated_at < EXTRACT(EPOCH FROM clock_timestamp()) - :idle"


class PostgresBuckets:
    """Buckets in `rate_limit_buckets`, shared by every process on the database, leased a few tokens at a time."""

    PRUNE_EVERY_SECONDS = 300.0
    MAX_LEASES = 100_000

    def __init__(self, db: Database, idle_seconds: float) -> None:
        # An engine of its own: autocommit (the UPSERT is its own transaction, no BEGIN/COMMIT round trips) and
        # synchronous_commit off, so that a hot bucket's row lock is not held across a WAL flush. A crash may forget
        # the last instants of spending: buckets are then a little fuller, never wrong otherwise. The payment data's
        # connections keep their durable commits: this setting is on these connections only.
        self._engine = postgres_engine(async_url(db.url), name="paygate-ratelimit", pool_size=5, max_overflow=5,
                                       options="-c synchronous_commit=off", isolation_level="AUTOCOMMIT",
                                       transaction_pooling=db.transaction_pooling)
        self._idle_seconds = idle_seconds
        self._next_prune = time.monotonic() + self.PRUNE_EVERY_SECONDS
        self._leases: dict[str, tuple[int, float]] = {}  # bucket → (tokens left, monotonic expiry)

    async def close(self) -> None:
        await self._engine.dispose()

    def _from_lease(self, name: str, now: float) -> bool:
        left, expires = self._leases.get(name, (0, 0.0))
        if left > 0 and now < expires:
            self._leases[name] = (left - 1, expires)
            return True
        return False

    async def take(self, wanted: list[tuple[str, Limit]]) -> int:
        now = time.monotonic()
        limits = {name: limit for name, limit in wanted if not self._from_lease(name, now)}
        if not limits:
            return 0
        names = sorted(limits)  # one lock order for every request: no deadlock between multi-bucket takes
        params = {"buckets": names, "rates": [limits[n].rate for n in names],
                  "bursts": [float(limits[n].burst) for n in names],
                  "leases": [float(lease_size(limits[n])) for n in names]}
        async with self._engine.connect() as conn:
            rows = (await conn.execute(sa.text(_TAKE), params)).all()
            if now >= self._next_prune:
                self._next_prune = now + self.PRUNE_EVERY_SECONDS
                await conn.execute(sa.text(_PRUNE), {"idle": self._idle_seconds})
        if len(self._leases) > self.MAX_LEASES:
            self._leases.clear()  # dropping leases only forgoes debited tokens: never more than the budget
        wait = 0
        for name, tokens, granted in rows:
            if granted >= 1:
                self._leases[name] = (int(granted) - 1, now + LEASE_SECONDS)
            else:
                wait = max(wait, wait_seconds(tokens, limits[name]))
        return wait
