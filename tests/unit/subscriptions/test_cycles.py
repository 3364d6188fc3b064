"""Billing period boundaries: each unit, intervals, and month-end clamping anchored on the original day."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

import pytest

from server.subscriptions.cycles import Cycle, Unit, boundary, period


def ts(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> int:
    return int(datetime(year, month, day, hour, minute, second, tzinfo=UTC).timestamp())


def test_a_day_cycle_adds_whole_days_keeping_the_time_of_day() -> None:
    assert boundary(ts(2026, 3, 1, 13, 5, 7), Cycle(Unit.DAY, 3), 2) == ts(2026, 3, 7, 13, 5, 7)


def test_a_week_cycle_adds_seven_days_per_interval() -> None:
    assert boundary(ts(2026, 12, 28), Cycle(Unit.WEEK, 2), 1) == ts(2027, 1, 11)


def test_month_end_clamps_jan_31_to_feb_28_then_back_to_mar_31() -> None:
    anchor, monthly = ts(2026, 1, 31, 10), Cycle(Unit.MONTH)
    assert [boundary(anchor, monthly, n) for n in (1, 2, 3, 4)] == [
        ts(2026, 2, 28, 10), ts(2026, 3, 31, 10), ts(2026, 4, 30, 10), ts(2026, 5, 31, 10)]


def test_month_end_clamps_to_feb_29_in_a_leap_year() -> None:
    anchor = ts(2028, 1, 31)
    assert boundary(anchor, Cycle(Unit.MONTH), 1) == ts(2028, 2, 29)
    assert boundary(anchor, Cycle(Unit.MONTH), 2) == ts(2028, 3, 31)


def test_a_month_interval_of_three_steps_quarters_across_the_year_end() -> None:
    assert boundary(ts(2026, 11, 30), Cycle(Unit.MONTH, 3), 1) == ts(2027, 2, 28)
    assert boundary(ts(2026, 11, 30), Cycle(Unit.MONTH, 3), 2) == ts(2027, 5, 30)


def test_a_year_cycle_anchored_on_feb_29_clamps_to_feb_28_and_returns_to_29() -> None:
    anchor = ts(2028, 2, 29)
    assert boundary(anchor, Cycle(Unit.YEAR), 1) == ts(2029, 2, 28)
    assert boundary(anchor, Cycle(Unit.YEAR), 4) == ts(2032, 2, 29)


def test_a_period_is_the_pair_of_consecutive_boundaries() -> None:
    assert period(ts(2026, 1, 31), Cycle(Unit.MONTH), 1) == (ts(2026, 2, 28), ts(2026, 3, 31))


def test_cycle_lengths_in_months_count_a_day_as_a_thirtieth() -> None:
    assert Cycle(Unit.DAY, 30).months == 1
    assert Cycle(Unit.WEEK, 1).months == Fraction(7, 30)
    assert Cycle(Unit.YEAR, 2).months == 24


def test_an_interval_below_one_is_refused() -> None:
    with pytest.raises(ValueError):
        Cycle(Unit.MONTH, 0)
