"""Saved cards: the provider customer of a paygate customer (made once) and the `pm_` rows that name its cards.

A row holds what the spec's SavedPaymentMethod shows (brand, last4, expiry, funding, country, fingerprint) and the
provider's ids; never a card number. One row per customer and card fingerprint: saving the same card again
returns the row already there.
"""

from __future__ import annotations

from paygate.v1 import customers_pb2
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards.accounts import Account
from server.cards.models import SavedPaymentMethod
from server.clock import now_of
from server.customers.models import Customer
from server.ids import new_id
from server.payment_intents.models import Charge
from server.payment_intents.states import ChargeStatus
from server.rails.card import Card


async def provider_customer(session: AsyncSession, acct: Account, customer_id: str) -> str:
    """The customer's id at the account's provider, created on first use. The customer row is locked while it is
    made, so two payments of one customer at once create one provider customer. Kept in the column the spec names,
    `provider_a_customer_id`: a second provider adds its own (customers.proto names the field per provider)."""
    customer = await session.get(Customer, customer_id, with_for_update=True, populate_existing=True)
    assert customer is not None
    if customer.provider_a_customer_id:
        return customer.provider_a_customer_id
    provider_id = await acct.client.create_customer(
        metadata={"paygate_customer_id": customer.id, "paygate_merchant_id": customer.merchant_id},
        idempotency_key=f"{customer.id}-{acct.provider}-customer", email=customer.email)
    customer.provider_a_customer_id = provider_id
    customer.updated = now_of(session)
    session.add(customer)
    await session.flush()
    return provider_id


async def remember(session: AsyncSession, acct: Account, *, customer_id: str, provider_customer_id: str,
                   card: Card) -> SavedPaymentMethod:
    """The customer's card at the account's provider, one row per card fingerprint."""
    if card.fingerprint:
        existing = (await session.exec(select(SavedPaymentMethod).where(
            SavedPaymentMethod.customer_id == customer_id, SavedPaymentMethod.fingerprint == card.fingerprint,
            SavedPaymentMethod.provider == acct.provider))).first()
        if existing is not None:
            return existing
    row = SavedPaymentMethod(
        id=new_id("pm"), merchant_id=acct.merchant_id, livemode=acct.livemode, customer_id=customer_id,
        provider=acct.provider,
        provider_customer_id=provider_customer_id, provider_payment_method_id=card.id, type="card",
        brand=card.brand, last4=card.last4, funding=card.funding, exp_month=card.exp_month, exp_year=card.exp_year,
        country=card.country, fingerprint=card.fingerprint, created=now_of(session))
    session.add(row)
    await session.flush()
    return row


async def find(session: AsyncSession, *, merchant_id: str, livemode: bool, customer_id: str | None,
               payment_method_id: str) -> SavedPaymentMethod | None:
    """The saved method only if it belongs to this customer of this merchant and mode (else None: the caller
    answers the same 400 for unknown and foreign ids, DESIGN §11)."""
    if not customer_id:
        return None
    row = await session.get(SavedPaymentMethod, payment_method_id)
    if row is None or row.merchant_id != merchant_id or row.livemode != livemode or row.customer_id != customer_id:
        return None
    return row


async def of_provider_card(session: AsyncSession, acct: Account, *, customer_id: str,
                           provider_payment_method_id: str) -> SavedPaymentMethod | None:
    """The customer's saved method that is this card at the account's provider, if one is saved."""
    return (await session.exec(select(SavedPaymentMethod).where(
        SavedPaymentMethod.merchant_id == acct.merchant_id, SavedPaymentMethod.livemode == acct.livemode,
        SavedPaymentMethod.customer_id == customer_id, SavedPaymentMethod.provider == acct.provider,
        SavedPaymentMethod.provider_payment_method_id == provider_payment_method_id))).first()


async def card_that_paid(session: AsyncSession, intent_id: str) -> SavedPaymentMethod | None:
    """The saved card of the intent's successful card charge (a free trial's card is saved, not charged: its
    charge of 0 names it too); None when the payer did not save the card."""
    pm_id = (await session.exec(select(Charge.saved_payment_method_id).where(
        Charge.payment_intent_id == intent_id, Charge.status == ChargeStatus.SUCCESS,
        col(Charge.saved_payment_method_id) != "").order_by(col(Charge.sort_key).desc()))).first()
    return await session.get(SavedPaymentMethod, pm_id) if pm_id else None


async def list_for(session: AsyncSession, *, merchant_id: str, livemode: bool,
                   customer_id: str) -> list[SavedPaymentMethod]:
    rows = await session.exec(select(SavedPaymentMethod).where(
        SavedPaymentMethod.merchant_id == merchant_id, SavedPaymentMethod.livemode == livemode,
        SavedPaymentMethod.customer_id == customer_id).order_by(col(SavedPaymentMethod.created),
                                                               col(SavedPaymentMethod.id)))
    return list(rows)


def to_proto(row: SavedPaymentMethod) -> customers_pb2.SavedPaymentMethod:
    return customers_pb2.SavedPaymentMethod(
        id=row.id, provider=row.provider, type=row.type, last4=row.last4, brand=row.brand, funding=row.funding,
        exp_month=row.exp_month, exp_year=row.exp_year, country=row.country, fingerprint=row.fingerprint)
