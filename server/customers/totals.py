"""A customer's running totals (DESIGN §12): integers in the minor unit of the customer's `currency`.

`currency` is the currency of the customer's first successful payment; payments and refunds in another currency do
not count. Each change is written in the transaction that makes the payment or refund successful, with the
customer's row locked, so the totals never disagree with what succeeded.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Catalogue
from server.customers.models import Customer

FIAT_DECIMALS = 2  # a currency missing from the catalogue: the common minor unit (cents)


def minor_units(catalogue: Catalogue, currency: str, amount: Decimal) -> Decimal:
    """`amount` of `currency` in its minor unit, rounded half-up: 10.50 USD → 1050."""
    asset = catalogue.by_id.get(currency)
    decimals = asset.decimals if asset else FIAT_DECIMALS
    return amount.scaleb(decimals).quantize(Decimal(1), rounding=ROUND_HALF_UP)


async def _locked(session: AsyncSession, customer_id: str | None) -> Customer | None:
    if not customer_id:
        return None
    return await session.get(Customer, customer_id, with_for_update=True, populate_existing=True)


async def paid(session: AsyncSession, catalogue: Catalogue, customer_id: str | None, currency: str,
               amount: Decimal) -> None:
    """A payment of `amount` `currency` succeeded."""
    customer = await _locked(session, customer_id)
    if customer is None:
        return
    if not customer.currency:
        customer.currency = currency
    if customer.currency != currency:
        return
    customer.total_payment += minor_units(catalogue, currency, amount)
    session.add(customer)


async def refunded(session: AsyncSession, catalogue: Catalogue, customer_id: str | None, currency: str,
                   value: Decimal) -> None:
    """A refund worth `value` `currency` (its asset amount times the charge's exchange rate) succeeded."""
    customer = await _locked(session, customer_id)
    if customer is None or customer.currency != currency:
        return
    customer.total_refund += minor_units(catalogue, currency, value)
    session.add(customer)
