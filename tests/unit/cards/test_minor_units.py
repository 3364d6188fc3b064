"""Amounts to and from provider_a's minor-unit integers: exact, never rounded."""

from decimal import Decimal

import pytest

from server.rails.card import from_minor, to_minor


def test_a_decimal_amount_becomes_minor_units() -> None:
    assert to_minor(Decimal("10.50"), 2) == 1050
    assert to_minor(Decimal("7"), 2) == 700
    assert to_minor(Decimal("1000"), 0) == 1000


def test_an_amount_finer_than_the_currency_is_refused_not_rounded() -> None:
    with pytest.raises(ValueError):
        to_minor(Decimal("0.001"), 2)


def test_minor_units_become_a_decimal_amount() -> None:
    assert from_minor(1050, 2) == Decimal("10.50")
