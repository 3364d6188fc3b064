"""The one place that reads the wall clock, so tests and the scheduler can agree on time."""

from __future__ import annotations

import os
import time

# Test-only: a file holding a number of seconds added to `now()`, so that a test can move a whole `paygate serve`
# process forward in time (webhook retries, leases) without waiting. Unset in production: `now()` is the wall clock.
OFFSET_FILE_ENV = "PAYGATE_CLOCK_OFFSET_FILE"


def _offset() -> int:
    path = os.environ.get(OFFSET_FILE_ENV)
    if not path:
        return 0
    try:
        with open(path) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def now() -> int:
    """Unix time in whole seconds."""
    return int(time.time()) + _offset()


_last_sort_key = 0


def sort_key() -> int:
    """Microseconds since the epoch, strictly increasing within a process: "newest first" must not depend on
    which of two rows created in the same second has the larger random id."""
    global _last_sort_key
    _last_sort_key = max(time.time_ns() // 1000, _last_sort_key + 1)
    return _last_sort_key
