"""The spec's plan-change matrix cell by cell (written out by hand here, not read from the code's table), the
classification, the defaults, and the credit formula at period start, middle and end."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server.subscriptions.cycles import Cycle, Unit
from server.subscriptions.proration import (
    Anchor,
    ChangeType,
    InvalidProration,
    PlanPrice,
    Shape,
    Timing,
    credit,
    decide,
    prorate,
    shape,
)

MONTH, YEAR, WEEK = Cycle(Unit.MONTH), Cycle(Unit.YEAR), Cycle(Unit.WEEK)
BASIC_M = PlanPrice("sp_m", "var_basic", 1, Decimal(10), MONTH)
PRO_M = PlanPrice("sp_m", "var_pro", 1, Decimal(20), MONTH)
BASIC_Y = PlanPrice("sp_y", "var_basic", 1, Decimal(120), YEAR)  # 10 a month: same tier as BASIC_M
PRO_Y = PlanPrice("sp_y", "var_pro", 1, Decimal(240), YEAR)
CHEAP_Y = PlanPrice("sp_y", "var_basic", 1, Decimal(96), YEAR)  # 8 a month

AI, CP, NO = "always_invoice", "create_prorations", "none"
NOW, KEPT = "now", "unchanged"
X = None  # invalid_proration_config

# (timing, charge now) per cell; rows are shapes, columns (behaviour, anchor).
CELLS = [(AI, NOW), (AI, KEPT), (CP, NOW), (CP, KEPT), (NO, NOW), (NO, KEPT)]
EXPECTED = {
    Shape.TIER_UP: [("reset", True), ("now_kept", True), X, ("period_end", False), X, X],
    Shape.INTERVAL_UP_SAME_TIER: [("reset", True), ("period_end", False), X, ("period_end", False), X, X],
    Shape.INTERVAL_UP_TIER_UP: [("reset", True), ("period_end", True), X, ("period_end", False), X, X],
    Shape.INTERVAL_UP_TIER_DOWN: [("reset", True), X, X, ("period_end", False), X, ("period_end", False)],
    Shape.DOWNGRADE: [X, X, X, X, X, ("period_end", False)],
}


@pytest.mark.parametrize(("s", "cell", "expected"), [
    (s, cell, outcome) for s, row in EXPECTED.items() for cell, outcome in zip(CELLS, row, strict=True)],
    ids=lambda v: v if isinstance(v, str) else "-".join(v) if isinstance(v, tuple) and all(
        isinstance(x, str) for x in v) else str(v))
def test_matrix_cell(s: Shape, cell: tuple[str, str], expected: tuple[str, bool] | None) -> None:
    from server.subscriptions.proration import Anchor, Behavior
    behavior, anchor = Behavior(cell[0]), Anchor(cell[1])
    if expected is None:
        with pytest.raises(InvalidProration) as refused:
            decide(s, behavior, anchor)
        assert refused.value.reason == "invalid_proration_config"
        assert str(refused.value).startswith("proration_behavior:")
    else:
        d = decide(s, behavior, anchor)
        assert (d.timing.value, d.charge_now) == expected


@pytest.mark.parametrize(("current", "target", "expected"), [
    (BASIC_M, PRO_M, Shape.TIER_UP),
    (PRO_M, BASIC_M, Shape.DOWNGRADE),
    (BASIC_M, BASIC_Y, Shape.INTERVAL_UP_SAME_TIER),
    (BASIC_M, PRO_Y, Shape.INTERVAL_UP_TIER_UP),
    (PRO_M, CHEAP_Y, Shape.INTERVAL_UP_TIER_DOWN),
    (PRO_Y, BASIC_M, Shape.DOWNGRADE),  # interval shortens: a downgrade whatever the tier
    (BASIC_Y, PRO_M, Shape.DOWNGRADE),
    (BASIC_M, BASIC_M, Shape.SAME),
    (BASIC_M, PlanPrice("sp_m2", "var_basic", 1, Decimal(10), MONTH), Shape.DOWNGRADE),  # lateral
    (BASIC_M, PlanPrice("sp_m", "var_basic", 2, Decimal(20), MONTH), Shape.TIER_UP),  # quantity counts
    (PlanPrice("sp_w", "v", 1, Decimal(3), WEEK), BASIC_M, Shape.INTERVAL_UP_TIER_DOWN),  # 12.86/month → 10
], ids=lambda v: v.value if isinstance(v, Shape) else None)
def test_classification(current: PlanPrice, target: PlanPrice, expected: Shape) -> None:
    assert shape(current, target) is expected


def test_upgrade_defaults_to_always_invoice_now() -> None:
    d = decide(Shape.TIER_UP, None, None)
    assert (d.behavior, d.anchor, d.timing, d.change_type) == ("always_invoice", "now", Timing.RESET,
                                                               ChangeType.UPGRADE)


def test_downgrade_defaults_to_none_unchanged_at_period_end() -> None:
    d = decide(Shape.DOWNGRADE, None, None)
    assert (d.behavior, d.anchor, d.timing, d.charge_now) == ("none", "unchanged", Timing.PERIOD_END, False)


def test_an_upgrade_with_create_prorations_and_no_anchor_keeps_the_cycle() -> None:
    from server.subscriptions.proration import Behavior
    assert decide(Shape.TIER_UP, Behavior.CREATE_PRORATIONS, None).anchor is Anchor.UNCHANGED


def test_a_downgrade_with_now_and_no_behaviour_is_invalid() -> None:
    with pytest.raises(InvalidProration):
        decide(Shape.DOWNGRADE, None, Anchor.NOW)


def test_the_same_plan_changes_nothing() -> None:
    d = decide(Shape.SAME, None, None)
    assert (d.timing, d.charge_now, d.change_type) == (Timing.NOTHING, False, ChangeType.NONE)


START, END = 1_000_000, 1_000_000 + 30 * 86_400


@pytest.mark.parametrize(("at", "expected"), [(START, "10.00"), (START + 15 * 86_400, "5.00"), (END, "0.00"),
                                              (START + 10 * 86_400, "6.67")],
                         ids=["start", "middle", "end", "a-third-rounds-half-up"])
def test_credit_for_the_old_plan(at: int, expected: str) -> None:
    assert credit(Decimal(10), START, END, at, 2) == Decimal(expected)


def test_a_credit_outside_the_period_is_refused() -> None:
    with pytest.raises(ValueError):
        credit(Decimal(10), START, END, END + 1, 2)


def test_a_reset_upgrade_charges_the_new_price_less_the_credit() -> None:
    d = decide(Shape.TIER_UP, None, None)
    p = prorate(d, BASIC_M, PRO_M, START, END, START + 15 * 86_400, 2)
    assert (p.credited, p.charged, p.net, p.carry) == (Decimal("5.00"), Decimal(20), Decimal("15.00"), 0)
    assert (p.days_remaining, p.total_days) == (15, 30)


def test_an_upgrade_keeping_the_cycle_charges_the_difference_for_the_time_left() -> None:
    from server.subscriptions.proration import Behavior
    d = decide(Shape.TIER_UP, Behavior.ALWAYS_INVOICE, Anchor.UNCHANGED)
    p = prorate(d, BASIC_M, PRO_M, START, END, START + 15 * 86_400, 2)
    assert (p.credited, p.charged, p.net) == (Decimal("5.00"), Decimal("10.00"), Decimal("5.00"))


def test_interval_up_tier_up_kept_charges_the_monthly_difference_times_the_time_left() -> None:
    from server.subscriptions.proration import Behavior
    d = decide(Shape.INTERVAL_UP_TIER_UP, Behavior.ALWAYS_INVOICE, Anchor.UNCHANGED)
    p = prorate(d, BASIC_M, PRO_Y, START, END, START + 15 * 86_400, 2)  # (20 - 10) * 1/2
    assert (p.credited, p.charged, p.net) == (0, Decimal("5.00"), Decimal("5.00"))


def test_a_credit_above_the_new_price_is_carried_not_paid_out() -> None:
    big_week = PlanPrice("sp_w", "v", 1, Decimal(500), WEEK)
    d = decide(Shape.INTERVAL_UP_TIER_DOWN, None, None)
    p = prorate(d, big_week, PlanPrice("sp_m", "v", 1, Decimal(100), MONTH), START, START + 7 * 86_400, START, 2)
    assert (p.net, p.carry) == (0, Decimal("400.00"))


def test_a_deferred_change_charges_and_credits_nothing() -> None:
    p = prorate(decide(Shape.DOWNGRADE, None, None), PRO_M, BASIC_M, START, END, START + 86_400, 2)
    assert (p.credited, p.charged, p.net, p.carry) == (0, 0, 0, 0)
