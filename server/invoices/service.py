"""The invoice API: list, retrieve, the paying intent, send, void (DESIGN §8). Scoped like every resource."""

from __future__ import annotations

from paygate.v1 import invoice_service_pb2 as pb
from paygate.v1 import invoices_pb2 as ipb
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.context import Caller
from server.errors import MissingParameter, NotFound, invalid
from server.invoices import states
from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.paging import Slice, newest_first
from server.payment_intents import settle
from server.payment_intents.env import Env
from server.payment_intents.models import PaymentIntent
from server.scoping import find_owned, get_owned, in_scope
from server.subscriptions import closing, lifecycle, locks
from server.subscriptions.billing import Callout
from server.subscriptions.collect import MAIL_LEASE_SECONDS, Collector, final_time, open_intent
from server.subscriptions.service import offset_limit


def status_wire(value: int) -> str:
    return str(ipb.InvoiceStatus.Name(value)).removeprefix("INVOICE_STATUS_").lower()


async def get(session: AsyncSession, caller: Caller, invoice_id: str) -> Invoice:
    return await get_owned(session, Invoice, invoice_id, caller, "invoice")


async def list_page(session: AsyncSession, caller: Caller, request: pb.ListInvoicesRequest
                    ) -> tuple[list[Invoice], int, int, int]:
    offset, limit = offset_limit(request)
    where = in_scope(Invoice, caller)
    if request.customer_id:
        where.append(col(Invoice.customer_id) == request.customer_id.strip())
    if request.subscription_id:
        where.append(col(Invoice.subscription_id) == request.subscription_id.strip())
    if request.status:
        where.append(col(Invoice.status) == status_wire(request.status))
    rows, total = await newest_first(session, Invoice, where, Slice(offset, limit))
    return rows, total, offset, limit


async def payment_intent_of(session: AsyncSession, caller: Caller, invoice_id: str) -> PaymentIntent:
    inv = await get(session, caller, invoice_id)
    intent = await session.get(PaymentIntent, inv.payment_intent_id) if inv.payment_intent_id else None
    if intent is None:
        raise NotFound("payment_intent")
    return intent


async def create_intent(session: AsyncSession, collector: Collector, caller: Caller,
                        request: pb.CreateInvoicePaymentIntentRequest) -> PaymentIntent:
    """The intent that pays an open invoice, created once: the same one on every call."""
    if not request.invoice_id.strip():
        raise MissingParameter("invoice_id")
    inv = await find_owned(session, Invoice, request.invoice_id.strip(), caller)
    if inv is None:
        raise invalid("invoice_id", "no such invoice")
    inv = await _locked_open(session, inv)
    return await open_intent(session, collector.env, inv, final_time(inv))


async def _locked_open(session: AsyncSession, inv: Invoice) -> Invoice:
    """The invoice, locked and read again, refused unless open: the callers create its intent when it has none, as
    the scheduler's card attempt does under the same lock (collect.charge). Read without it, two of them could each
    create one: the intent e-mailed would not be the one the card paid, and the payer could pay both."""
    inv = await session.get(Invoice, inv.id, with_for_update=True, populate_existing=True) or inv
    if inv.status != InvoiceStatus.OPEN:
        raise states.NotOpen(inv.status, states.Event.PAY)
    return inv


async def send(session: AsyncSession, collector: Collector, caller: Caller, invoice_id: str
               ) -> tuple[Invoice, list[Callout]]:
    inv = await _locked_open(session, await get(session, caller, invoice_id))
    await open_intent(session, collector.env, inv, final_time(inv))
    # Leased to this request's callout, which e-mails it after the commit (wall clock, like the mail job's claim):
    # the job leaves it alone unless this process dies before sending.
    inv.mail_due_at = now_of(session) + MAIL_LEASE_SECONDS
    session.add(inv)
    return inv, [Callout("mail", inv.id)]


async def void(session: AsyncSession, env: Env, caller: Caller, invoice_id: str) -> Invoice:
    """Void an open or draft invoice and cancel its payment intent, so that its payment_url takes no money; refused
    (409 invoice_not_open) while its payment is under way or done. A renewal invoice the subscription waits on is
    settled by it: the period moves on as if it were paid, and nothing more is collected for that cycle."""
    inv = await get(session, caller, invoice_id)
    if inv.payment_intent_id:
        await settle.lock(session, inv.payment_intent_id)  # before the subscription: the lock order (locks.py)
    sub = await locks.subscription(session, inv.subscription_id)
    now = sub.time_at(now_of(session)) if sub is not None else 0
    await closing.close_unpaid(session, env, inv, states.Event.VOID, now, voided_at=now)
    if sub is not None and inv.billing_reason == "subscription_cycle":
        await lifecycle.advance_if_paid(session, sub, inv, now)
    return inv
