"""The one place that reads the wall clock, so tests and the scheduler can agree on time."""

from __future__ import annotations

import time


def now() -> int:
    """Unix time in whole seconds."""
    return int(time.time())


_last_sort_key = 0


def sort_key() -> int:
    """Microseconds since the epoch, strictly increasing within a process: "newest first" must not depend on
    which of two rows created in the same second has the larger random id."""
    global _last_sort_key
    _last_sort_key = max(time.time_ns() // 1000, _last_sort_key + 1)
    return _last_sort_key
