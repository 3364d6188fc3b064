"""Quotes: how much of a crypto asset pays an amount in the intent's currency (DESIGN §11).

`exchange_rate` is the price of one unit of the asset in the intent's currency; the amount to pay is
`fiat ÷ rate`, rounded up to the asset's decimals so that paying the quote always covers the amount due.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from server.catalogue.catalogue import Asset
from server.money import MONEY, compute
from server.rates import RateSource

QUOTE_SECONDS = 30 * 60
# 60 digits hold any rate between two prices of the table and an 18 + 18 digit amount (DESIGN §14); quantize in
# the default 28-digit context failed on a large amount in an 18-decimal asset.
_EXACT = MONEY


@dataclass(frozen=True)
class Quote:
    asset_id: str
    amount: Decimal  # in the asset, at most `decimals` places
    exchange_rate: Decimal  # one unit of the asset in the intent's currency
    expires_at: int


def step(decimals: int) -> Decimal:
    return Decimal(1).scaleb(-decimals)


def round_up(value: Decimal, decimals: int) -> Decimal:
    return value.quantize(step(decimals), rounding=ROUND_CEILING, context=_EXACT)


def round_down(value: Decimal, decimals: int) -> Decimal:
    return value.quantize(step(decimals), rounding=ROUND_FLOOR, context=_EXACT)


def price_code(currency: Asset) -> str:
    """The rate table's key for a pricing currency: the fiat code, or a crypto asset's coin."""
    return currency.id if currency.is_fiat else currency.coin


async def exchange_rate(rates: RateSource, asset: Asset, currency: Asset) -> Decimal:
    if asset.id == currency.id:
        return Decimal(1)
    asset_usd = await rates.usd_price(asset.coin)
    currency_usd = await rates.usd_price(price_code(currency))
    return _EXACT.divide(asset_usd, currency_usd).normalize(_EXACT)


def amount_for(due: Decimal, rate: Decimal, decimals: int) -> Decimal:
    """The asset amount that pays `due` (in the intent's currency) at `rate`, rounded up."""
    return round_up(_EXACT.divide(due, rate), decimals)


async def quote(rates: RateSource, asset: Asset, currency: Asset, due: Decimal, now: int,
                seconds: int = QUOTE_SECONDS) -> Quote:
    rate = await exchange_rate(rates, asset, currency)
    with compute("amount"):  # an amount too large to quote in this asset is the caller's 400, not a 500
        amount = amount_for(due, rate, asset.decimals)
    return Quote(asset.id, amount, rate, now + seconds)
