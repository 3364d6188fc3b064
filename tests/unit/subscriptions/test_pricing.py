"""Tier selection by cycle number, prices after discount, and the amount display."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server.subscriptions.pricing import FIXED, RECURRING, Policy, Span, display, policy_for, tier

INTRO = Policy(FIXED, 0, Decimal(50))  # cycle 1 at half price
LOYAL = Policy(RECURRING, 1, Decimal("12.5"))  # from cycle 2 on
LATER = Policy(RECURRING, 5, Decimal(20))  # from cycle 6 on


def test_without_policies_every_cycle_is_the_plain_price() -> None:
    t = tier(Decimal("9.99"), 2, [], 7, 2)
    assert (t.policy, t.base_price, t.discount, t.final_price) == (None, Decimal("19.98"), 0, Decimal("19.98"))


def test_a_fixed_policy_prices_the_cycles_before_the_next_policy() -> None:
    policies = [Policy(FIXED, 0, Decimal(50)), Policy(RECURRING, 3, Decimal(10))]
    assert [policy_for(policies, n) for n in (1, 2, 3, 4, 9)] == [policies[0]] * 3 + [policies[1]] * 2


def test_a_fixed_policy_last_in_line_covers_its_first_cycle_only() -> None:
    assert [policy_for([INTRO], n) for n in (1, 2, 3)] == [INTRO, None, None]


def test_the_recurring_policy_in_force_is_the_latest_started() -> None:
    policies = [INTRO, LOYAL, LATER]
    assert [policy_for(policies, n) for n in (1, 2, 5, 6, 100)] == [INTRO, LOYAL, LOYAL, LATER, LATER]


def test_a_fixed_policy_wins_over_a_recurring_one_in_force() -> None:
    promo = Policy(FIXED, 3, Decimal(90))  # cycle 4 only (the next policy starts after cycle 4? none: one cycle)
    policies = [LOYAL, promo]
    assert [policy_for(policies, n) for n in (2, 3, 4, 5)] == [LOYAL, LOYAL, promo, LOYAL]


def test_cycles_before_the_first_policy_pay_the_plain_price() -> None:
    assert policy_for([LATER], 5) is None and policy_for([LATER], 6) == LATER


def test_the_discount_is_rounded_half_up_to_the_minor_unit() -> None:
    t = tier(Decimal("0.25"), 1, [Policy(RECURRING, 0, Decimal(10))], 1, 2)  # 0.025 → 0.03
    assert (t.discount, t.final_price) == (Decimal("0.03"), Decimal("0.22"))


def test_a_hundred_percent_discount_is_a_free_cycle() -> None:
    assert tier(Decimal(10), 3, [Policy(FIXED, 0, Decimal(100))], 1, 2).final_price == 0


def test_tier_spans_describe_their_cycles() -> None:
    policies = [INTRO, LOYAL, LATER]
    assert tier(Decimal(10), 1, policies, 1, 2).span == Span(1, 1)
    assert tier(Decimal(10), 1, policies, 3, 2).span == Span(2, 5)
    assert tier(Decimal(10), 1, policies, 7, 2).span == Span(6, None)
    assert [Span(1, 1).description, Span(2, 5).description, Span(6, None).description] == [
        "Cycle 1", "Cycles 2-5", "Cycle 6 onwards"]
    assert (Span(2, 5).total_cycles, Span(6, None).total_cycles) == (4, 0)


def test_cycle_numbers_start_at_one() -> None:
    with pytest.raises(ValueError):
        policy_for([INTRO], 0)


def test_display_writes_the_symbol_before_and_other_codes_after() -> None:
    assert display(Decimal("9.5"), "USD", 2) == "$9.50"
    assert display(Decimal("1234.5"), "EUR", 2) == "€1,234.50"
    assert display(Decimal("12"), "USDT-ETH-TEST", 6) == "12.000000 USDT-ETH-TEST"
