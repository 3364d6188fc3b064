"""Customers: create, list, retrieve, update, delete. Every query is scoped to the caller's merchant and mode."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from paygate.v1 import customers_pb2
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, validate
from server.clock import now_of
from server.context import Caller
from server.customers.convert import to_proto
from server.customers.models import Customer
from server.db.construct import insert_new, new_row
from server.events.outbox import changed, record, snapshot
from server.ids import new_id
from server.merchants.models import Merchant
from server.paging import Page, newest_first
from server.scoping import find_owned, get_owned, in_scope


def _alive(row: Customer) -> bool:
    return not row.deleted_at


async def get(session: AsyncSession, caller: Caller, customer_id: str) -> Customer:
    """The caller's customer; a deleted one is not found (see server/scoping.py for the refusals)."""
    return await get_owned(session, Customer, customer_id, caller, "customer", alive=_alive)


async def find(session: AsyncSession, caller: Caller, customer_id: str) -> Customer | None:
    return await find_owned(session, Customer, customer_id, caller, alive=_alive)


def _apply(row: Customer, request: customers_pb2.CreateCustomerRequest | customers_pb2.UpdateCustomerRequest) -> None:
    if request.HasField("name"):
        row.name = validate.text("name", request.name.strip())
    if request.HasField("email"):
        row.email = validate.email("email", request.email)
    if request.HasField("description"):
        row.description = validate.text("description", request.description, max_length=1000)
    if request.HasField("phone"):
        row.phone = validate.phone("phone", request.phone)
    if request.HasField("uuid"):
        row.uuid = validate.text("uuid", request.uuid.strip())
    if request.HasField("metadata"):
        row.metadata_ = json_fields.metadata_of(request.metadata)


async def create(session: AsyncSession, caller: Caller, request: customers_pb2.CreateCustomerRequest) -> Customer:
    now = now_of(session)
    row = new_row(Customer, id=new_id("cus"), merchant_id=caller.merchant_id, livemode=caller.livemode,
                  created=now, updated=now)
    _apply(row, request)
    # Written once and never changed in this unit of work: one INSERT, without the unit of work's bookkeeping.
    await insert_new(session, row)
    await record(session, merchant_id=row.merchant_id, livemode=row.livemode, type="customer.created",
                 resource=to_proto(row))
    return row


async def _event(session: AsyncSession, row: Customer, type: str, before: dict[str, Any] | None = None) -> None:
    # Written now: the event row references the customer's merchant, and its snapshot is the customer as saved.
    await session.flush()
    after = to_proto(row)
    previous = changed(before, snapshot(after)) if before is not None else None
    await record(session, merchant_id=row.merchant_id, livemode=row.livemode, type=type, resource=after,
                 previous_attributes=previous)


async def update(session: AsyncSession, caller: Caller, request: customers_pb2.UpdateCustomerRequest) -> Customer:
    row = await get(session, caller, request.id)
    before = snapshot(to_proto(row))
    _apply(row, request)
    row.updated = now_of(session)
    session.add(row)
    await _event(session, row, "customer.updated", before)
    return row


async def delete(session: AsyncSession, caller: Caller, customer_id: str) -> None:
    # Kept as a tombstone: payments that name the customer still resolve it.
    row = await get(session, caller, customer_id)
    row.deleted_at = row.updated = now_of(session)
    session.add(row)
    await _event(session, row, "customer.deleted")


async def list_page(session: AsyncSession, caller: Caller, page: Page, email: str) -> tuple[list[Customer], int]:
    where = [*in_scope(Customer, caller), col(Customer.deleted_at).is_(None)]
    if email:
        where.append(col(Customer.email) == email.strip())
    return await newest_first(session, Customer, where, page)


async def find_by_identity(session: AsyncSession, caller: Caller, idp_key: str, subject: str) -> Customer | None:
    column = {"email": Customer.email, "phone": Customer.phone, "uuid": Customer.uuid}[idp_key]
    # Emails are matched whatever their case: identity subjects arrive lowercased, while a merchant's own
    # customers keep the email as the merchant typed it ("Ann@Example.com").
    matches = sa.func.lower(column) == subject.lower() if idp_key == "email" else column == subject
    rows = await session.exec(
        select(Customer).where(Customer.merchant_id == caller.merchant_id, Customer.livemode == caller.livemode,
                               col(Customer.deleted_at).is_(None), matches)
        .order_by(col(Customer.created)).limit(1)
    )
    return rows.first()


async def create_for_identity(session: AsyncSession, caller: Caller, idp_key: str, subject: str) -> Customer:
    """A new customer for the identity, unless a transaction that ran at the same time has just created one."""
    # First sign-ins of one identity at once (a token opened in two tabs) queue on the merchant's row and look
    # again, instead of each creating a customer. SQLite serialises writers already.
    await session.get(Merchant, caller.merchant_id, with_for_update=True)
    existing = await find_by_identity(session, caller, idp_key, subject)
    if existing is not None:
        return existing
    now = now_of(session)
    row = Customer(id=new_id("cus"), merchant_id=caller.merchant_id, livemode=caller.livemode,
                   created=now, updated=now)
    setattr(row, idp_key, subject)
    session.add(row)
    # Written now: rows added next in the same unit of work (an auth token) reference it by foreign key, and the
    # unit of work does not order inserts of models without a relationship between them.
    await session.flush()
    await _event(session, row, "customer.created")
    return row
