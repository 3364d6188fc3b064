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


@dataclass(frozen=True)
class Limit:
    rate: float
    burst: int


def wait_seconds(tokens: float, limit: Limit) -> int:
    """Whole seconds until one token is back: what Retry-After says."""
    return max(1, math.ceil((1 - tokens) / limit.rate))


class Buckets(Protocol):
    async def take(self, wanted: list[tuple[str, Limit]]) -> int:
        """0 when every bucket gave a token, else the seconds to wait for the slowest one."""
        ...


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


# One round trip: every bucket of the request is refilled, spent and read back by one statement, atomically per
# row, on the database's clock (so that workers on several hosts agree). SET expressions see the old row.
_TAKE = """
INSERT INTO rate_limit_buckets AS b (bucket, tokens, updated_at, allowed, rate, burst)
SELECT w.bucket, w.burst - 1, EXTRACT(EPOCH FROM clock_timestamp()), true, w.rate, w.burst
FROM unnest(CAST(:buckets AS text[]), CAST(:rates AS float8[]), CAST(:bursts AS float8[])) AS w(bucket, rate, burst)
ORDER BY w.bucket
ON CONFLICT (bucket) DO UPDATE SET
  tokens = LEAST(excluded.burst, b.tokens + (excluded.updated_at - b.updated_at) * excluded.rate)
           - CASE WHEN LEAST(excluded.burst, b.tokens + (excluded.updated_at - b.updated_at) * excluded.rate) >= 1
                  THEN 1 ELSE 0 END,
  allowed = LEAST(excluded.burst, b.tokens + (excluded.updated_at - b.updated_at) * excluded.rate) >= 1,
  updated_at = excluded.updated_at, rate = excluded.rate, burst = excluded.burst
RETURNING b.bucket, b.tokens, b.allowed
"""


class PostgresBuckets:
    """Buckets in `rate_limit_buckets`, shared by every process on the database."""

    PRUNE_EVERY_SECONDS = 300.0

    def __init__(self, db: Database, idle_seconds: float) -> None:
        # Autocommit: the UPSERT is its own transaction, with no BEGIN/COMMIT round trips around it.
        self._engine = db.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._idle_seconds = idle_seconds
        self._next_prune = time.monotonic() + self.PRUNE_EVERY_SECONDS

    async def take(self, wanted: list[tuple[str, Limit]]) -> int:
        limits = dict(wanted)
        names = sorted(limits)  # one lock order for every request: no deadlock between multi-bucket takes
        params = {"buckets": names, "rates": [limits[n].rate for n in names],
                  "bursts": [float(limits[n].burst) for n in names]}
        async with self._engine.connect() as conn:
            rows = (await conn.execute(sa.text(_TAKE), params)).all()
            if time.monotonic() >= self._next_prune:
                self._next_prune = time.monotonic() + self.PRUNE_EVERY_SECONDS
                await conn.execute(sa.text(
                    "DELETE FROM rate_limit_buckets WHERE updated_at < EXTRACT(EPOCH FROM clock_timestamp()) - :idle"),
                    {"idle": self._idle_seconds})
        wait = 0
        for name, tokens, allowed in rows:
            if not allowed:
                wait = max(wait, wait_seconds(tokens, limits[name]))
        return wait
