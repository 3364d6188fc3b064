"""Exchange rates behind one interface. The default source is the configured table (`rates` setting, USD prices);
a live price feed is another `RateSource`, switched on by configuration."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Protocol


class RateUnavailable(Exception):
    """No price for a code; the message names it."""


class RateSource(Protocol):
    async def usd_price(self, code: str) -> Decimal:
        """Price of one unit of a coin (`ETH`) or fiat currency (`EUR`) in USD."""
        ...


class TableRates:
    """Fixed prices from configuration, e.g. 1 USD = 1 USDT = 1 USDC, ETH = 3000 USD."""

    def __init__(self, prices: Iterable[tuple[str, Decimal]]) -> None:
        self._prices = {code.upper(): Decimal(price) for code, price in prices}

    async def usd_price(self, code: str) -> Decimal:
        price = self._prices.get(code.upper())
        if price is None:
            raise RateUnavailable(f"no exchange rate for {code}")
        return price
