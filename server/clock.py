"""Time. `Clock` is what a runtime holds (server/runtime.py): `SystemClock` in every deployment. Tests that move a
whole process forward in time (webhook retries, leases) start it with their own clock (tests/clock.py).

There is no module-level "now": domain time is the runtime's clock only, so a process started with a moved clock
never mixes it with wall time. Code inside a unit of work reads it from its session (`now_of(session)`: the
Database that opened the session put its clock there); code without a session takes the clock, or a `now` chosen
by its caller, explicitly. `sort_key()` orders rows created within one second.
"""

from __future__ import annotations

import time
from typing import Any, Protocol, cast


class Clock(Protocol):
    def now(self) -> int:
        """Unix time in whole seconds."""
        ...


class SystemClock:
    """The wall clock."""

    def now(self) -> int:
        return int(time.time())


SYSTEM_CLOCK = SystemClock()  # stateless


class HasInfo(Protocol):
    """A session, sync or async: what `now_of` needs of it (server/clock.py imports no database code)."""

    @property
    def info(self) -> dict[Any, Any]: ...


def clock_of(session: HasInfo) -> Clock:
    """The clock of the Database that opened `session`. A session opened elsewhere has none: a bug to surface,
    not a reason to fall back to wall time."""
    clock = session.info.get("clock")
    if clock is None:
        raise LookupError("this session was not opened by a Database: it carries no clock")
    return cast(Clock, clock)


def now_of(session: HasInfo) -> int:
    """Unix time in whole seconds, on the clock of the runtime whose unit of work `session` is."""
    return clock_of(session).now()


# Process-wide on purpose and never read as data: only the next value must exceed the last one handed out in this
# process (rows of one process keep their creation order); across processes the wall clock orders them.
_last_sort_key = 0


def sort_key() -> int:
    """Microseconds since the epoch, strictly increasing within a process: "newest first" must not depend on
    which of two rows created in the same second has the larger random id."""
    return sort_keys(1)


def sort_keys(count: int) -> int:
    """The first of `count` consecutive sort keys, all greater than any handed out before in this process: for rows
    a single statement makes (`first + 0`, `first + 1`, …)."""
    global _last_sort_key
    first = max(time.time_ns() // 1000, _last_sort_key + 1)
    _last_sort_key = first + count - 1
    return first
