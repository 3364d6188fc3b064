"""Making orders, and reading them.

An order is made by the outbox subscriber (`on_event`) in the transaction that records the intent's
`payment_intent.succeeded`, so it commits with the success or not at all. It is made once per intent: a second
run of the subscriber (the same event seen again) finds the order and stops, and the unique index on
`payment_intent_id` refuses a second row should two runs ever race. An intent that never succeeds (unpaid, expired,
canceled) records no success event and makes no order; neither does an intent that sold no payment link.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.context import Caller
from server.customers.models import Customer
from server.events.models import Event as EventRow
from server.ids import new_id
from server.orders.models import Order
from server.paging import Page, newest_first
from server.payment_intents import methods
from server.payment_intents.models import PaymentIntent
from server.scoping import get_owned, in_scope

RESOURCE = "order"
PAID = "Paid"
STATUSES = (PAID,)
SUCCEEDED = "payment_intent.succeeded"


async def on_event(session: AsyncSession, event: EventRow) -> None:
    if event.type == SUCCEEDED:
        await make(session, event.object_id)


async def make(session: AsyncSession, intent_id: str) -> Order | None:
    """The order of a payment link purchase that succeeded: made on the first call, found on the next ones."""
    existing = (await session.exec(select(Order).where(Order.payment_intent_id == intent_id))).first()
    if existing is not None:
        return existing
    intent = await session.get(PaymentIntent, intent_id)
    if intent is None or not intent.payment_link_id or not intent.link_snapshot:
        return None
    snap = intent.link_snapshot
    customer = await session.get(Customer, intent.customer_id) if intent.customer_id else None
    now = now_of(session)
    order = Order(
        id=new_id("ord"), merchant_id=intent.merchant_id, livemode=intent.livemode, payment_intent_id=intent.id,
        payment_link_id=intent.payment_link_id, external_id=intent.merchant_order_id,
        customer=_buyer(customer), shipping_address=intent.shipping_address or None,
        product=dict(snap.get("product") or {}), items=[dict(i) for i in snap.get("items", [])],
        total=Decimal(snap["total"]), currency=str(snap["currency"]), status=PAID,
        payment_method=methods.of(intent.payment_method_type).order_label, created_at=now, updated_at=now)
    session.add(order)
    await session.flush()
    return order


def _buyer(customer: Customer | None) -> dict[str, Any] | None:
    if customer is None:
        return None
    return {"id": customer.id, "name": customer.name, "email": customer.email, "phone": customer.phone}


async def get(session: AsyncSession, caller: Caller, order_id: str) -> Order:
    return await get_owned(session, Order, order_id.strip(), caller, RESOURCE)


async def list_page(session: AsyncSession, caller: Caller, page: Page, status: str) -> tuple[list[Order], int]:
    where = in_scope(Order, caller)
    if status:
        where.append(col(Order.status) == status)
    return await newest_first(session, Order, where, page)
