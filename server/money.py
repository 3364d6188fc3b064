"""Money on input and in arithmetic (DESIGN §14).

Input is ASCII decimal only: `^(0|[1-9][0-9]*)(\\.[0-9]+)?$`, at most 18 integer digits and at most the asset's or
currency's decimals. Anything else (signs, exponents, `_`, spaces, non-ASCII digits, `NaN`, `Infinity`) is
`400 parameter_invalid` naming the field — `Decimal()` itself would take all of those.

Arithmetic runs in `MONEY`: 60 significant digits hold 18 integer + 18 fractional digits of two operands with room
to spare, and every signal that would mean a silently wrong amount traps. `compute()` turns such a trap into the
same 400 for the field being computed, never a 500.
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

from server.errors import invalid

MAX_INTEGER_DIGITS = 18
MAX_DECIMALS = 18

_DECIMAL = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]+)?", re.ASCII)

# Inexact is not trapped: a division for a quote is inexact by nature and is rounded up explicitly afterwards.
MONEY = decimal.Context(
    prec=60, rounding=decimal.ROUND_HALF_EVEN, Emax=999, Emin=-999,
    traps=[decimal.InvalidOperation, decimal.Overflow, decimal.DivisionByZero, decimal.Clamped,
           decimal.Subnormal, decimal.Underflow, decimal.FloatOperation],
)
ARITHMETIC = (decimal.InvalidOperation, decimal.Overflow, decimal.DivisionByZero, decimal.Clamped,
              decimal.Subnormal, decimal.Underflow, decimal.FloatOperation)


def install() -> None:
    """Give this thread, and every context created later (tasks, threads), `MONEY`'s precision.

    Money is still computed inside `compute()`; this only makes sure that a sum written elsewhere (the totals of
    many charges) never falls back to the 28-digit default and rounds silently. The default traps and range stay,
    because libraries share this context.
    """
    decimal.DefaultContext.prec = MONEY.prec
    decimal.getcontext().prec = MONEY.prec


def parse(field: str, value: str, *, decimals: int = MAX_DECIMALS, allow_zero: bool = True) -> Decimal:
    """A non-negative amount from its decimal string, or `parameter_invalid` naming `field`."""
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
        raise invalid(field, f"{_show(value)} is not a decimal amount (ASCII digits, optional '.' and decimals)")
    whole, _, fraction = value.partition(".")
    if len(whole) > MAX_INTEGER_DIGITS:
        raise invalid(field, f"at most {MAX_INTEGER_DIGITS} integer digits")
    if len(fraction) > decimals:
        raise invalid(field, f"at most {decimals} decimal places")
    parsed = Decimal(value)
    if not allow_zero and parsed == 0:
        raise invalid(field, f"{_show(value)} must be a positive decimal amount")
    return parsed


def text(value: Decimal) -> str:
    """Canonical decimal string: no exponent, no trailing zeros beyond what was given."""
    return format(value, "f")


@contextmanager
def compute(field: str) -> Iterator[decimal.Context]:
    """`with compute("amount"):` money arithmetic in `MONEY`; a trapped signal is `400` naming `field`."""
    try:
        with decimal.localcontext(MONEY) as ctx:
            yield ctx
    except ARITHMETIC:
        raise invalid(field, "the amount is out of range") from None


def _show(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."
