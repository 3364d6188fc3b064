"""Plan changes: the spec's classification, its proration matrix cell by cell, and the credit formula.

Classification (spec "Plan change"): an upgrade when the tier rises at the same interval or the interval
lengthens; a downgrade when the tier falls at the same interval or the interval shortens, whatever the tier.
"Interval" compares cycle lengths; "tier" compares the final price per month (a cycle's price ÷ its length in
months, a day being 1/30 of a month; DESIGN §8). The same plan, variant and quantity is no change. A different
target at the same interval and the same price per month is lateral: handled as a downgrade (deferred to the period
end, nothing charged), so no cell charges for a change worth nothing.

The matrix per shape of change, columns (proration_behavior, billing_cycle_anchor) with AI = always_invoice,
CP = create_prorations; every other cell is `invalid_proration_config`:

| shape                   | AI, now            | AI, unchanged            | CP, unchanged | none, unchanged |
|-------------------------|--------------------|--------------------------|---------------|-----------------|
| tier up, same interval  | now, reset, charge | now, cycle kept, charge  | period end    | -               |
| interval up, same tier  | now, reset, charge | period end               | period end    | -               |
| interval up, tier up    | now, reset, charge | period end, charge the   | period end    | -               |
|                         |                    | monthly difference now   |               |                 |
| interval up, tier down  | now, reset, charge | -                        | period end    | period end      |
| downgrade (tier down or | -                  | -                        | -             | period end      |
| lateral; interval down) |                    |                          |               |                 |

("period end": the change applies when the current period ends, nothing is charged now.)
`create_prorations+now` and `none+now` are never valid. Defaults: an upgrade omitting the behaviour uses
`always_invoice`, a downgrade `none`; an omitted anchor is `now` for an upgrade with `always_invoice`, else
`unchanged`.

Amounts, in `Decimal`, rounded half-up to the currency's minor unit:
* credit for the old plan = old price * (period_end - proration_date) / (period_end - period_start), where the old
  price is what was paid for the current period (`Paid`): nothing for a free trial or a period whose invoice was
  voided, given up on, made free by a pause or is still unpaid, so no credit then;
* during a free trial the rest of the trial costs nothing on the new plan either: a change that keeps the cycle
  (or charges the monthly difference) charges 0 now, and the trial's end charges the new plan;
* reset (`always_invoice+now`): charged = the new plan's price for a full new cycle; due = charged - credit, at
  least 0; a credit above the charge carries to the next invoice;
* cycle kept (`always_invoice+unchanged`, same interval): charged = new price * the same remaining ratio;
* interval up and tier up at period end: charged now = (new - old price per month) * the old cycle's length in
  months * the remaining ratio (for a monthly plan, the spec's "tier difference in monthly base price times
  remaining time ratio"); nothing credited.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from server.errors import InvalidArgument
from server.money import compute
from server.subscriptions.cycles import Cycle
from server.subscriptions.pricing import quantize

DAY = 86_400


class InvalidProration(InvalidArgument):
    reason = "invalid_proration_config"


class ChangeType(StrEnum):
    UPGRADE = "upgrade"
    DOWNGRADE = "downgrade"
    NONE = "none"


class Shape(StrEnum):
    SAME = "same"
    TIER_UP = "tier_up"  # same interval
    INTERVAL_UP_SAME_TIER = "interval_up_same_tier"
    INTERVAL_UP_TIER_UP = "interval_up_tier_up"
    INTERVAL_UP_TIER_DOWN = "interval_up_tier_down"
    DOWNGRADE = "downgrade"  # tier down (or lateral) at the same interval, or interval down


class Behavior(StrEnum):
    ALWAYS_INVOICE = "always_invoice"
    CREATE_PRORATIONS = "create_prorations"
    NONE = "none"


class Anchor(StrEnum):
    NOW = "now"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class PlanPrice:
    """One side of a change: what it is and what a cycle of it costs (after its tier's discount)."""

    selling_plan_id: str
    variant_id: str
    quantity: int
    price: Decimal
    cycle: Cycle


def shape(current: PlanPrice, target: PlanPrice) -> Shape:
    if (current.selling_plan_id, current.variant_id, current.quantity) == (
            target.selling_plan_id, target.variant_id, target.quantity):
        return Shape.SAME
    old_len, new_len = current.cycle.length, target.cycle.length
    # Price per month compared exactly: new.price / new_len against old.price / old_len.
    old_tier, new_tier = current.price * new_len, target.price * old_len
    if new_len > old_len:
        if new_tier > old_tier:
            return Shape.INTERVAL_UP_TIER_UP
        return Shape.INTERVAL_UP_SAME_TIER if new_tier == old_tier else Shape.INTERVAL_UP_TIER_DOWN
    if new_len == old_len and new_tier > old_tier:
        return Shape.TIER_UP
    return Shape.DOWNGRADE


def change_type(s: Shape) -> ChangeType:
    if s is Shape.SAME:
        return ChangeType.NONE
    return ChangeType.DOWNGRADE if s is Shape.DOWNGRADE else ChangeType.UPGRADE


class Timing(StrEnum):
    RESET = "reset"  # applies now, a new cycle starts now
    NOW_KEPT = "now_kept"  # applies now, the cycle is kept
    PERIOD_END = "period_end"  # applies when the current period ends
    NOTHING = "nothing"  # the same plan


@dataclass(frozen=True)
class Decision:
    shape: Shape
    behavior: Behavior | None
    anchor: Anchor | None
    timing: Timing
    charge_now: bool

    @property
    def change_type(self) -> ChangeType:
        return change_type(self.shape)

    @property
    def immediate(self) -> bool:
        return self.timing in (Timing.RESET, Timing.NOW_KEPT)


B, A = Behavior, Anchor
UPGRADE_CELLS: dict[tuple[Behavior, Anchor], tuple[Timing, bool]] = {
    (B.ALWAYS_INVOICE, A.NOW): (Timing.RESET, True),
    (B.CREATE_PRORATIONS, A.UNCHANGED): (Timing.PERIOD_END, False),
}
MATRIX: dict[Shape, dict[tuple[Behavior, Anchor], tuple[Timing, bool]]] = {
    Shape.TIER_UP: {**UPGRADE_CELLS, (B.ALWAYS_INVOICE, A.UNCHANGED): (Timing.NOW_KEPT, True)},
    Shape.INTERVAL_UP_SAME_TIER: {**UPGRADE_CELLS, (B.ALWAYS_INVOICE, A.UNCHANGED): (Timing.PERIOD_END, False)},
    Shape.INTERVAL_UP_TIER_UP: {**UPGRADE_CELLS, (B.ALWAYS_INVOICE, A.UNCHANGED): (Timing.PERIOD_END, True)},
    Shape.INTERVAL_UP_TIER_DOWN: {**UPGRADE_CELLS, (B.NONE, A.UNCHANGED): (Timing.PERIOD_END, False)},
    Shape.DOWNGRADE: {(B.NONE, A.UNCHANGED): (Timing.PERIOD_END, False)},
}


def decide(s: Shape, behavior: Behavior | None, anchor: Anchor | None) -> Decision:
    """The matrix cell of this change, defaults resolved; `invalid_proration_config` for an empty cell."""
    if s is Shape.SAME:
        return Decision(s, behavior, anchor, Timing.NOTHING, False)
    upgrade = change_type(s) is ChangeType.UPGRADE
    if behavior is None:
        behavior = B.ALWAYS_INVOICE if upgrade else B.NONE
    if anchor is None:
        anchor = A.NOW if upgrade and behavior is B.ALWAYS_INVOICE else A.UNCHANGED
    cell = MATRIX[s].get((behavior, anchor))
    if cell is None:
        kind = s.value.replace("_", " ")
        raise InvalidProration(f"proration_behavior: {behavior.value} with billing_cycle_anchor {anchor.value} "
                               f"is not valid for this change ({kind})", field="proration_behavior")
    return Decision(s, behavior, anchor, *cell)


class Paid(StrEnum):
    """What the subscriber paid for the current period: what its unused time is worth."""

    IN_FULL = "in_full"  # the current plan's price
    NOTHING = "nothing"  # its invoice was voided, given up on, made free by a pause, or is not paid yet
    FREE_TRIAL = "free_trial"  # nothing, and the rest of the trial is free on any plan


@dataclass(frozen=True)
class Proration:
    credited: Decimal
    charged: Decimal
    net: Decimal  # due now, never below 0
    carry: Decimal  # credit left over for the next invoice
    days_remaining: int
    total_days: int


def credit(old_price: Decimal, period_start: int, period_end: int, proration_date: int, decimals: int) -> Decimal:
    """Old price * (period_end - proration_date) / (period_end - period_start), half-up to the minor unit."""
    if not period_start <= proration_date <= period_end or period_end <= period_start:
        raise ValueError("proration_date lies outside the period")
    with compute("proration_date"):
        return quantize(old_price * Decimal(period_end - proration_date) / Decimal(period_end - period_start),
                        decimals)


def prorate(decision: Decision, current: PlanPrice, target: PlanPrice, period_start: int, period_end: int,
            proration_date: int, decimals: int, *, paid: Paid = Paid.IN_FULL) -> Proration:
    """What the change credits and charges now; `paid`: what the subscriber paid for the current period."""
    days = (max(0, period_end - proration_date) // DAY, max(0, period_end - period_start) // DAY)
    zero = Decimal(0)
    if not decision.charge_now:
        return Proration(zero, zero, zero, zero, *days)
    paid_price = current.price if paid is Paid.IN_FULL else zero
    trial = paid is Paid.FREE_TRIAL
    with compute("primary_variant"):
        if decision.timing is Timing.RESET:
            credited = credit(paid_price, period_start, period_end, proration_date, decimals)
            charged = target.price
        elif decision.timing is Timing.NOW_KEPT:
            credited = credit(paid_price, period_start, period_end, proration_date, decimals)
            charged = credit(zero if trial else target.price, period_start, period_end, proration_date, decimals)
        else:  # interval up, tier up: the monthly difference over what is left of the old period
            credited = zero
            # (new - old per month) * old cycle in months = new * old_len / new_len - old
            difference = zero if trial else target.price * current.cycle.length / target.cycle.length - current.price
            charged = credit(difference, period_start, period_end, proration_date, decimals)
        net = charged - credited
    return Proration(credited, charged, max(net, zero), max(-net, zero), *days)
