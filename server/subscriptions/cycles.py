"""Billing periods: `day|week|month|year` * interval, in UTC (DESIGN §8).

Every boundary is computed from the anchor, never from the previous boundary: a month step keeps the anchor's day
of month clamped to the month's last day, so a subscription anchored on Jan 31 renews on Feb 28 (29 in a leap
year) and then on Mar 31 again, not on Mar 28. The time of day is the anchor's.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from fractions import Fraction


class Unit(StrEnum):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"


# Length of one unit in thirtieths of a month, for comparing plans: a day is 1/30 of a month (DESIGN §8). Whole
# numbers, so that comparisons of prices per month are exact cross-multiplications.
THIRTIETHS_PER_UNIT: dict[Unit, int] = {Unit.DAY: 1, Unit.WEEK: 7, Unit.MONTH: 30, Unit.YEAR: 360}


@dataclass(frozen=True)
class Cycle:
    unit: Unit
    interval: int = 1

    def __post_init__(self) -> None:
        if self.interval < 1:
            raise ValueError("a billing cycle interval is at least 1")

    @classmethod
    def of(cls, unit: str, interval: int) -> Cycle:
        return cls(Unit(unit), max(1, interval))

    @property
    def length(self) -> int:
        """The cycle's length in thirtieths of a month (a day), for comparing intervals and tiers."""
        return THIRTIETHS_PER_UNIT[self.unit] * self.interval

    @property
    def months(self) -> Fraction:
        return Fraction(self.length, 30)


def _add_months(start: datetime, months: int) -> datetime:
    index = start.month - 1 + months
    year, month = start.year + index // 12, index % 12 + 1
    day = min(start.day, calendar.monthrange(year, month)[1])
    return start.replace(year=year, month=month, day=day)


def boundary(anchor: int, cycle: Cycle, n: int) -> int:
    """The end of the n-th cycle after `anchor` (n = 0 is the anchor itself), Unix seconds."""
    if n < 0:
        raise ValueError("n must be 0 or more")
    start = datetime.fromtimestamp(anchor, UTC)
    steps = n * cycle.interval
    if cycle.unit is Unit.DAY:
        end = start + timedelta(days=steps)
    elif cycle.unit is Unit.WEEK:
        end = start + timedelta(weeks=steps)
    elif cycle.unit is Unit.MONTH:
        end = _add_months(start, steps)
    else:
        end = _add_months(start, 12 * steps)
    return int(end.timestamp())


def period(anchor: int, cycle: Cycle, n: int) -> tuple[int, int]:
    """The (start, end) of the period that starts n cycles after `anchor`."""
    return boundary(anchor, cycle, n), boundary(anchor, cycle, n + 1)
