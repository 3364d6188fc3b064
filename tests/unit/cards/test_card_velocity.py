"""Card testing's decline cut-off (DESIGN §16): 3 declines within an hour refuse card payment for an hour from the
third, not from the first."""

from __future__ import annotations

from server.cards.velocity import seconds_refused


def test_two_declines_refuse_nothing() -> None:
    assert seconds_refused([100, 0], 100) == 0


def test_the_third_decline_within_an_hour_refuses_for_an_hour_from_it() -> None:
    assert seconds_refused([3500, 3000, 0], 3500) == 3600
    assert seconds_refused([3500, 3000, 0], 4000) == 3100
    assert seconds_refused([3500, 3000, 0], 7100) == 0


def test_three_declines_spread_over_more_than_an_hour_refuse_nothing() -> None:
    assert seconds_refused([3600, 1800, 0], 3600) == 0
