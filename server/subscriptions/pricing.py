"""What a cycle costs: the selling plan's pricing policies by cycle number (DESIGN §8).

A policy with `after_cycle = k` starts at cycle k + 1. The price of cycle n is decided by, in this order:

1. the FIXED policy covering n — a FIXED policy covers the cycles from its start up to the start of the next
   policy (by `after_cycle`); the last policy being FIXED, it covers its first cycle only ("specific cycles": an
   introductory price, after which the plan's price applies again);
2. else the RECURRING policy in force — the one with the greatest `after_cycle` below n;
3. else the plain plan: the variant's price, no discount.

The price of a cycle is variant price * quantity, less the policy's discount percentage rounded half-up to the
currency's minor unit. `current_pricing_tier`, `upcoming_pricing_tier` and `next_charge_amount` are all this
function of a cycle number, so they always agree with the invoice that cycle will get.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

FIXED = "FIXED"
RECURRING = "RECURRING"
HUNDRED = Decimal(100)


@dataclass(frozen=True)
class Policy:
    policy_type: str
    after_cycle: int
    discount_percentage: Decimal

    @classmethod
    def of(cls, stored: dict[str, Any]) -> Policy:
        return cls(str(stored["policy_type"]), int(stored["after_cycle"]),
                   Decimal(str(stored.get("discount_percentage") or "0")))


@dataclass(frozen=True)
class Span:
    """The cycles a policy covers: first..last (last None: ongoing)."""

    first: int
    last: int | None

    @property
    def total_cycles(self) -> int:
        return 0 if self.last is None else self.last - self.first + 1

    def covers(self, n: int) -> bool:
        return self.first <= n and (self.last is None or n <= self.last)

    @property
    def description(self) -> str:
        if self.last is None:
            return f"Cycle {self.first} onwards" if self.first > 1 else "Every cycle"
        if self.last == self.first:
            return f"Cycle {self.first}"
        return f"Cycles {self.first}-{self.last}"


@dataclass(frozen=True)
class Tier:
    """The price of one cycle number."""

    policy: Policy | None
    span: Span
    cycle_number: int
    base_price: Decimal
    discount: Decimal
    final_price: Decimal

    @property
    def policy_type(self) -> str:
        return self.policy.policy_type if self.policy else ""

    @property
    def discount_percentage(self) -> Decimal:
        return self.policy.discount_percentage if self.policy else Decimal(0)


def quantize(amount: Decimal, decimals: int) -> Decimal:
    """Half-up to the currency's minor unit."""
    return amount.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def ordered(policies: list[Policy]) -> list[Policy]:
    return sorted(policies, key=lambda p: (p.after_cycle, p.policy_type != FIXED))


def span_of(policies: list[Policy], policy: Policy) -> Span:
    first = policy.after_cycle + 1
    later = [p.after_cycle for p in policies if p.after_cycle > policy.after_cycle]
    if policy.policy_type == FIXED:
        return Span(first, min(later) if later else first)
    later_recurring = [p.after_cycle for p in policies if p.policy_type == RECURRING
                       and p.after_cycle > policy.after_cycle]
    return Span(first, min(later_recurring) if later_recurring else None)


def policy_for(policies: list[Policy], n: int) -> Policy | None:
    """The policy pricing cycle n (from 1), or None for the plain plan."""
    if n < 1:
        raise ValueError("cycles are numbered from 1")
    ranked = ordered(policies)
    for p in ranked:
        if p.policy_type == FIXED and span_of(ranked, p).covers(n):
            return p
    recurring = [p for p in ranked if p.policy_type == RECURRING and p.after_cycle < n]
    return recurring[-1] if recurring else None


def tier(unit_price: Decimal, quantity: int, policies: list[Policy], n: int, decimals: int) -> Tier:
    """The price of cycle n for `quantity` units at `unit_price`."""
    policy = policy_for(policies, n)
    base = quantize(unit_price * quantity, decimals)
    discount = quantize(base * policy.discount_percentage / HUNDRED, decimals) if policy else Decimal(0)
    span = span_of(ordered(policies), policy) if policy else _plain_span(policies, n)
    return Tier(policy=policy, span=span, cycle_number=n, base_price=base, discount=discount,
                final_price=base - discount)


def _plain_span(policies: list[Policy], n: int) -> Span:
    """The run of cycles around n that no policy prices: after the last FIXED run that ended before n, up to the
    next policy's start."""
    ranked = ordered(policies)
    ended = [last for p in ranked if p.policy_type == FIXED
             and (last := span_of(ranked, p).last) is not None and last < n]
    starts = [p.after_cycle + 1 for p in ranked if p.after_cycle + 1 > n]
    return Span(max(ended, default=0) + 1, min(starts) - 1 if starts else None)


def cycle_price(unit_price: Decimal, quantity: int, policies: list[Policy], n: int, decimals: int) -> Decimal:
    return tier(unit_price, quantity, policies, n, decimals).final_price


SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥", "INR": "₹", "KRW": "₩", "CAD": "CA$",
           "AUD": "A$", "HKD": "HK$", "SGD": "S$", "CHF": "CHF ", "BRL": "R$", "RUB": "₽", "TRY": "₺"}


def display(amount: Decimal, currency: str, decimals: int) -> str:
    """`$9.50`; a currency without a symbol is written after the amount (`9.50 USDT`)."""
    text = f"{quantize(amount, decimals):,.{decimals}f}"
    symbol = SYMBOLS.get(currency.upper())
    return f"{symbol}{text}" if symbol else f"{text} {currency}"
