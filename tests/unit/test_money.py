"""server/money.py: the one parser of money input and the context money is computed in (DESIGN §14)."""

from __future__ import annotations

import decimal
from decimal import Decimal

import pytest

from server import money
from server.errors import InvalidArgument


@pytest.mark.parametrize("value", ["0", "1", "10.50", "0.000000000000000001", "9" * 18, "9" * 18 + "." + "9" * 18])
def test_ascii_decimals_parse_exactly(value: str) -> None:
    assert money.text(money.parse("amount", value)) == value


@pytest.mark.parametrize("value", ["", "-0", "-1", "+1", " 1", "1 ", "1_0", "\u0661", "²", "1e3", "1E3", "NaN", "nan",
                                   "Infinity", "inf", "01", "1.", ".1", "1,5", "0x1", "1" + "0" * 18])
def test_anything_else_is_parameter_invalid_naming_the_field(value: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        money.parse("price.amount", value)
    assert str(caught.value).startswith("price.amount")


def test_decimals_are_limited_to_the_currency() -> None:
    assert money.parse("amount", "1.25", decimals=2) == Decimal("1.25")
    with pytest.raises(InvalidArgument):
        money.parse("amount", "1.255", decimals=2)


def test_zero_is_refused_when_a_positive_amount_is_needed() -> None:
    with pytest.raises(InvalidArgument):
        money.parse("amount", "0.00", allow_zero=False)


def test_money_context_holds_18_plus_18_digits_exactly() -> None:
    big = Decimal("9" * 18 + "." + "9" * 18)
    with money.compute("amount"):
        total = big + big + big
    assert str(total) == "2" + "9" * 18 + "." + "9" * 17 + "7"


def test_a_trapped_signal_in_money_arithmetic_is_parameter_invalid() -> None:
    with pytest.raises(InvalidArgument) as caught, money.compute("amount"):
        Decimal(1) / Decimal(0)
    assert str(caught.value).startswith("amount")
    with pytest.raises(InvalidArgument), money.compute("amount"):
        Decimal("1" + "0" * 40).quantize(Decimal("1e-30"))


def test_install_widens_the_default_precision() -> None:
    saved = decimal.getcontext().prec, decimal.DefaultContext.prec
    try:
        money.install()
        assert decimal.getcontext().prec == money.MONEY.prec
    finally:
        decimal.getcontext().prec, decimal.DefaultContext.prec = saved
