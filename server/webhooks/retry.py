"""When a failed delivery is tried again: exponential backoff with jitter, for up to three days.

A pure function of the attempt number and the times, so the schedule is tested without a clock.
"""

from __future__ import annotations

import random

BASE_SECONDS = 30
CAP_SECONDS = 6 * 3600
JITTER = 0.10
WINDOW_SECONDS = 3 * 24 * 3600


def delay(attempt: int, rand: random.Random | None = None) -> int:
    """Seconds to wait after failed attempt number `attempt` (from 1): 30 s doubling, capped at 6 h, ±10%.

    The jitter spreads the retries of many deliveries that failed together (a receiver's outage) so they do not
    all come back in the same second.
    """
    nominal = min(BASE_SECONDS * 2 ** (attempt - 1), CAP_SECONDS)
    spread = (rand or random).uniform(-JITTER, JITTER)
    return max(1, round(nominal * (1 + spread)))


def next_attempt_at(attempt: int, now: int, window_start: int, rand: random.Random | None = None) -> int | None:
    """When attempt `attempt + 1` is due, or None when it would fall beyond three days after the first attempt
    was scheduled: the delivery is then marked failed for good."""
    at = now + delay(attempt, rand)
    return at if at <= window_start + WINDOW_SECONDS else None
