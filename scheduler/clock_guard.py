"""Scheduler jobs pause while this host's clock disagrees with the database's (PostgreSQL, several hosts).

Work is shared between scheduler processes by leases in the database (`locked_until`, a cursor's lease): a row
leased until T is free for another process once that process's clock passes T. A process whose clock runs ahead of
the others by more than a lease takes work still in flight elsewhere (a webhook sent twice, a chain range scanned
twice); one behind holds what it leased too long. So before a job runs, the host's clock is compared with the
database server's, the one clock every process shares: off by more than MAX_SKEW_SECONDS (far below every lease),
the jobs of this process do nothing, with an ERROR in the log, until the clock is right again. Checked at most every
CHECK_SECONDS; the network's round trip is taken out (the database's reading is compared with the middle of it).

SQLite has one host, hence one clock: nothing to compare.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import sqlalchemy as sa

from server.db import Database

log = logging.getLogger("paygate.scheduler")

MAX_SKEW_SECONDS = 5.0
CHECK_SECONDS = 30.0
_DB_NOW = sa.text("SELECT EXTRACT(EPOCH FROM clock_timestamp())")


class ClockGuard:
    def __init__(self, db: Database, *, wall: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._db, self._wall, self._monotonic = db, wall, monotonic
        self._checked_at: float | None = None
        self._skew = 0.0

    async def skew(self) -> float:
        """This host's clock minus the database's, in seconds (0 on SQLite)."""
        if not self._db.is_postgres:
            return 0.0
        before = self._wall()
        async with self._db.read() as session:
            db_now = float((await session.exec(_DB_NOW)).one()[0])  # type: ignore[call-overload]
        after = self._wall()
        return (before + after) / 2 - db_now

    async def allows(self) -> bool:
        """Whether this process's jobs may run now (read again every CHECK_SECONDS)."""
        now = self._monotonic()
        if self._checked_at is None or now - self._checked_at >= CHECK_SECONDS:
            self._skew, self._checked_at = await self.skew(), now
            if abs(self._skew) > MAX_SKEW_SECONDS:
                log.error("this host's clock differs from the database's: scheduler jobs paused until it is right "
                          "(leases shared with other processes would be wrong)",
                          extra={"skew_seconds": round(self._skew, 1), "max_skew_seconds": MAX_SKEW_SECONDS})
        return abs(self._skew) <= MAX_SKEW_SECONDS
