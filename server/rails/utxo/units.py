"""Exact conversions between a node's coin amounts (JSON numbers parsed as Decimal: 0.1 LTC) and base units
(litoshis, satoshis: integers). A node's amount that is not a whole number of base units is an inconsistent answer."""

from __future__ import annotations

from decimal import Decimal

from server.rails.base import ChainUnavailable


def to_base(value: object, decimals: int) -> int:
    """`value` (Decimal, int or the node's string) in base units; ChainUnavailable when it is not exact."""
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise ChainUnavailable(f"the node gave {value!r} as an amount")
    try:
        scaled = Decimal(value).scaleb(decimals)
    except ArithmeticError:
        raise ChainUnavailable(f"the node gave {value!r} as an amount") from None
    if not scaled.is_finite() or scaled != scaled.to_integral_value() or scaled < 0:
        raise ChainUnavailable(f"the node gave {value!r} as an amount: not a whole number of base units")
    return int(scaled)


def to_coins(base: int, decimals: int) -> Decimal:
    """Base units as a coin amount for the node's calls (sendtoaddress, createrawtransaction): exact."""
    return Decimal(base).scaleb(-decimals)
