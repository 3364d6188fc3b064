"""The one place that reads the wall clock, so tests and the scheduler can agree on time."""

from __future__ import annotations

import time


def now() -> int:
    """Unix time in whole seconds."""
    return int(time.time())
