"""Time. `Clock` is what a runtime holds (server/runtime.py): `SystemClock` in every deployment. Tests that move a
whole process forward in time (webhook retries, leases) start it with their own clock (tests/clock.py).

`now()` here is the system clock, for code that has no runtime at hand (domain functions take `now` when a caller
must choose it); `sort_key()` orders rows created within one second.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> int:
        """Unix time in whole seconds."""
        ...


class SystemClock:
    """The wall clock."""

    def now(self) -> int:
        return int(time.time())


SYSTEM_CLOCK = SystemClock()  # stateless


def now() -> int:
    """Unix time in whole seconds, from the system clock."""
    return int(time.time())


# Process-wide on purpose and never read as data: only the next value must exceed the last one handed out in this
# process (rows of one process keep their creation order); across processes the wall clock orders them.
_last_sort_key = 0


def sort_key() -> int:
    """Microseconds since the epoch, strictly increasing within a process: "newest first" must not depend on
    which of two rows created in the same second has the larger random id."""
    global _last_sort_key
    _last_sort_key = max(time.time_ns() // 1000, _last_sort_key + 1)
    return _last_sort_key
