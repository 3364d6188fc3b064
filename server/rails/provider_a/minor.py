"""Amounts between paygate (Decimal in the currency's units) and provider_a (integers of the minor unit)."""

from __future__ import annotations

from decimal import Decimal


def to_minor(amount: Decimal, decimals: int) -> int:
    """10.50 with 2 decimals → 1050. The amount never has more decimals than the currency (validated on input)."""
    scaled = amount.scaleb(decimals)
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{amount} has more than {decimals} decimal places")
    return int(scaled)


def from_minor(value: int, decimals: int) -> Decimal:
    return Decimal(value).scaleb(-decimals)
