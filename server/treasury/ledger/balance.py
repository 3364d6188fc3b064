"""The merchant's balance (`GET /v1/stats/balance`): the ledger's sums per asset, and their value in the merchant's
settlement currency (a fiat of the catalogue, USD by default; `paygate merchants set-settlement-currency`) at current
rates. The per-asset amounts are the ledger's sums exactly; only the fiat totals are rounded
(each from its exact sum, to the currency's decimals, half up)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Asset, Catalogue
from server.merchants.models import Merchant
from server.money import MONEY
from server.payment_intents.totals import text
from server.rates import RateSource, RateUnavailable
from server.rates.quotes import exchange_rate
from server.treasury.ledger import postings
from server.treasury.ledger.models import Account

log = logging.getLogger("paygate.treasury")
DEFAULT_SETTLEMENT_CURRENCY = "USD"  # DESIGN §15: the merchant's settlement fiat, USD by default
SHOWN = (Account.AVAILABLE, Account.PENDING, Account.LOCKED, Account.FROZEN)


@dataclass(frozen=True)
class Amounts:
    available: Decimal
    pending: Decimal
    locked: Decimal
    frozen: Decimal

    @property
    def total(self) -> Decimal:
        return self.available + self.pending + self.locked + self.frozen

    @classmethod
    def of(cls, sums: dict[Account, Decimal]) -> Amounts:
        return cls(*(sums.get(a, Decimal(0)) for a in SHOWN))

    def times(self, rate: Decimal) -> Amounts:
        return Amounts(*(MONEY.multiply(v, rate) for v in (self.available, self.pending, self.locked, self.frozen)))

    def plus(self, other: Amounts) -> Amounts:
        return Amounts(self.available + other.available, self.pending + other.pending,
                       self.locked + other.locked, self.frozen + other.frozen)


ZERO = Amounts(Decimal(0), Decimal(0), Decimal(0), Decimal(0))


@dataclass(frozen=True)
class Balance:
    currency: str
    decimals: int
    fiat: Amounts  # exact
    per_asset: list[tuple[str, Amounts]]

    def rounded(self, value: Decimal) -> str:
        return text(value.quantize(Decimal(1).scaleb(-self.decimals), rounding=ROUND_HALF_UP, context=MONEY))


def settlement_currency(catalogue: Catalogue, merchant: Merchant | None) -> Asset:
    """The fiat the merchant's money is valued in: its settlement currency, USD by default (or when unknown)."""
    code = merchant.settlement_currency if merchant is not None else DEFAULT_SETTLEMENT_CURRENCY
    currency = catalogue.currency(code)
    if currency is None or not currency.is_fiat:  # set only through `paygate merchants set-settlement-currency`
        log.warning("unknown settlement currency, showing USD",
                    extra={"merchant": merchant.id if merchant else "", "currency": code})
        currency = catalogue.currency(DEFAULT_SETTLEMENT_CURRENCY)
    assert currency is not None, "USD is built into the catalogue"
    return currency


async def of_merchant(session: AsyncSession, catalogue: Catalogue, rates: RateSource, merchant_id: str,
                      livemode: bool) -> Balance:
    sums = await postings.balances(session, merchant_id, livemode)
    currency = settlement_currency(catalogue, await session.get(Merchant, merchant_id))
    fiat = ZERO
    per_asset: list[tuple[str, Amounts]] = []
    for asset_id in sorted(sums):
        amounts = Amounts.of(sums[asset_id])
        per_asset.append((asset_id, amounts))
        asset = catalogue.by_id.get(asset_id)
        if asset is None:
            continue
        try:
            fiat = fiat.plus(amounts.times(await exchange_rate(rates, asset, currency)))
        except RateUnavailable as e:
            # Shown per asset all the same; the fiat totals leave it out rather than fail the whole balance.
            log.warning("no rate for a balance", extra={"asset": asset_id, "error": str(e)})
    return Balance(currency.id, currency.decimals, fiat, per_asset)
