"""The moves of a subscription and its invoices, inside the caller's transaction, with their events.

Everything here reads and writes rows only (no network): the caller commits, then does what must leave the process
(collecting a card, e-mailing a payment link) as `Callout`s. A move is applied with `move()`, which asks the state
table (server/subscriptions/states.py) and records `subscription.updated` with `previous_attributes`, plus the
event of the status entered (`.paused`, `.resumed`, `.deleted`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from email.message import Message
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.clock import now_of
from server.customers.models import Customer
from server.db.construct import new_row
from server.events import outbox
from server.ids import new_id
from server.invoices import states as inv_states
from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.merchants.models import Merchant
from server.subscriptions import convert, session_rows
from server.subscriptions.aggregate import Loaded, load
from server.subscriptions.cycles import boundary
from server.subscriptions.models import Subscription
from server.subscriptions.states import Event, Status, transition
from server.validate import money_text

DUE_DAYS = 3  # a crypto invoice is due 3 days after its period starts; past_due after that
FINAL_DAYS = 7  # crypto: canceled for non-payment 7 days after the period end
CARD_RETRY_DAYS = (1, 3, 5)  # cards are retried 1, 3 and 5 days after the period end
NOTICE_DAYS = 3  # invoice.upcoming and subscription.trial_will_end: 3 days before the period (or trial) ends
DAY = 86_400

ENTERED_EVENTS = {Status.PAUSED: "subscription.paused", Status.CANCELED: "subscription.deleted"}


@dataclass(frozen=True)
class Callout:
    """Work for after the commit: `charge` a card for an invoice, or `mail` an invoice's payment link (`message`:
    the e-mail as built from the rows of the transaction that leased it, else it is built after the commit)."""

    kind: str
    invoice_id: str
    message: Message | None = field(default=None, compare=False, repr=False)


def snapshot(loaded: Loaded) -> dict[str, Any]:
    return outbox.snapshot(convert.to_proto(loaded))


async def record(session: AsyncSession, loaded: Loaded, type_: str, before: dict[str, Any] | None = None) -> None:
    resource = convert.to_proto(loaded)
    previous = None if before is None else outbox.changed(before, outbox.snapshot(resource))
    await outbox.record(session, merchant_id=loaded.sub.merchant_id, livemode=loaded.sub.livemode, type=type_,
                        resource=resource, previous_attributes=previous)


async def invoice_view(session: AsyncSession, inv: Invoice) -> Any:
    merchant = await session_rows.get(session, Merchant, inv.merchant_id)
    customer = await session_rows.get(session, Customer, inv.customer_id) if inv.customer_id else None
    return convert.invoice_proto(inv, merchant.name if merchant else "", customer)


async def record_invoice(session: AsyncSession, inv: Invoice, type_: str,
                         before: dict[str, Any] | None = None) -> None:
    resource = await invoice_view(session, inv)
    previous = None if before is None else outbox.changed(before, outbox.snapshot(resource))
    await outbox.record(session, merchant_id=inv.merchant_id, livemode=inv.livemode, type=type_, resource=resource,
                        previous_attributes=previous)


async def move(session: AsyncSession, loaded: Loaded, event: Event, now: int, *, record_events: bool = True,
               **facts: Any) -> None:
    """Apply one transition and its facts; record subscription.updated (and the event of the status entered)."""
    before = snapshot(loaded)
    sub = loaded.sub
    was = sub.status
    sub.status = transition(sub.status, event)
    for name, value in facts.items():
        setattr(sub, name, value)
    sub.updated_at = now
    await refresh_due(session, sub)
    session.add(sub)
    fresh = await load(session, sub)
    loaded.target, loaded.current = fresh.target, fresh.current
    if not record_events:
        return
    if sub.status != was and (entered := ENTERED_EVENTS.get(Status(sub.status))):
        await record(session, loaded, entered, before)
    if event is Event.RESUME:
        await record(session, loaded, "subscription.resumed", before)
    await record(session, loaded, "subscription.updated", before)


async def record_upcoming(session: AsyncSession, loaded: Loaded) -> None:
    """`invoice.upcoming`: the invoice the coming period end will issue, as it would be now (on the pending plan if
    one applies then, less the carried credit). Like the public API's upcoming invoice it has no id: it does not
    exist yet."""
    sub = loaded.sub
    plan = loaded.target or loaded.current
    start = sub.renew_at if sub.renew_at is not None else sub.current_period_end
    end = boundary(start, plan.cycle, 1) if plan.cycle != loaded.current.cycle else next_period(sub, loaded)[1]
    n = sub.current_cycle_number + 1
    price = plan.tier(n).final_price
    on_plan = replace(loaded, current=plan, target=None)
    lines = [line(on_plan, price, start, end)]
    credit = min(sub.credit_balance, price)
    if credit > 0:
        lines.append(line(on_plan, -credit, start, end, description="Credit from a plan change", proration=True))
    now = sub.time_at(now_of(session))
    upcoming = Invoice(id="", merchant_id=sub.merchant_id, livemode=sub.livemode, subscription_id=sub.id,
                       customer_id=sub.customer_id, amount=max(price - credit, Decimal(0)), currency=sub.currency,
                       decimals=sub.decimals, status=InvoiceStatus.DRAFT, billing_reason="subscription_cycle",
                       cycle_number=n,
                       period_start=start, period_end=end, lines=lines, next_payment_attempt=start,
                       external_id=sub.external_id, created_at=now, updated_at=now)
    await outbox.record(session, merchant_id=sub.merchant_id, livemode=sub.livemode, type="invoice.upcoming",
                        resource=await invoice_view(session, upcoming))


OUTSTANDING = "paygate.outstanding"


async def outstanding(session: AsyncSession, sub: Subscription) -> Invoice | None:
    """The open invoice the subscription waits on (a renewal or a plan change), if any. Known for the rest of the
    unit of work once read: invoices of a subscription change only through new_invoice and invoice_move, which
    keep it."""
    known: dict[str, Invoice | None] = session.info.setdefault(OUTSTANDING, {})
    if sub.id in known:
        inv = known[sub.id]
        if inv is None or inv.status == InvoiceStatus.OPEN:
            return inv
    found = (await session.exec(select(Invoice).where(Invoice.subscription_id == sub.id,
                                                      Invoice.status == InvoiceStatus.OPEN,
                                                      col(Invoice.billing_reason) != "subscription_create")
                                .order_by(col(Invoice.sort_key)))).first()
    known[sub.id] = found
    return found


async def prefetch_outstanding(session: AsyncSession, subs: list[Subscription]) -> None:
    """`outstanding` of a whole claimed batch in one query (a renewal sweep asks it of every subscription)."""
    known: dict[str, Invoice | None] = session.info.setdefault(OUTSTANDING, {})
    wanted = [s.id for s in subs if s.id not in known]
    if not wanted:
        return
    found = await session.exec(select(Invoice).where(col(Invoice.subscription_id).in_(wanted),
                                                     Invoice.status == InvoiceStatus.OPEN,
                                                     col(Invoice.billing_reason) != "subscription_create")
                               .order_by(col(Invoice.sort_key).desc()))
    for sub_id in wanted:
        known[sub_id] = None
    for inv in found:
        known[inv.subscription_id] = inv  # the oldest wins: rows come newest first


def closes_waiting(sub: Subscription) -> bool:
    """Whether the subscription's open invoices are to be closed: it ended, or a `void` pause voided them. One
    still open waited on its payment (server/subscriptions/closing.py)."""
    return sub.status == Status.CANCELED or (sub.status == Status.PAUSED and sub.pause_collection_behavior == "void")


async def waiting(session: AsyncSession, sub: Subscription) -> Invoice | None:
    """The invoice left open when the subscription ended (or was paused with `void`) because its payment was under
    way, looked at again at its `next_payment_attempt`; None for a subscription that closes nothing."""
    if not closes_waiting(sub):
        return None
    return (await session.exec(select(Invoice).where(Invoice.subscription_id == sub.id,
                                                     Invoice.status == InvoiceStatus.OPEN,
                                                     col(Invoice.next_payment_attempt).is_not(None))
                               .order_by(col(Invoice.next_payment_attempt)).limit(1))).first()


def _forget(session: AsyncSession, inv: Invoice) -> None:
    session.info.setdefault(OUTSTANDING, {}).pop(inv.subscription_id, None)


def in_trial_end(sub: Subscription) -> bool:
    """The current period is the free trial, and its end is the next period end."""
    return sub.trial_end is not None and sub.current_cycle_number == 0 and sub.renew_at == sub.trial_end


def notice_at(sub: Subscription) -> int | None:
    """When the advance notices of the coming period end are due (3 days before it, or at the period start if the
    period is shorter), once per period end; None when none will be sent: nothing renews (paused, canceled, a
    renewal invoice outstanding) or a cancel is scheduled and no trial ends."""
    if sub.status not in (Status.ACTIVE, Status.PAST_DUE) or sub.renew_at is None \
            or sub.notified_for == sub.renew_at:
        return None
    if sub.cancel_at_period_end and not in_trial_end(sub):
        return None
    return max(sub.renew_at - NOTICE_DAYS * DAY, sub.current_period_start)


async def refresh_due(session: AsyncSession, sub: Subscription) -> None:
    """due_at = the earliest of what the scheduler must do for this subscription."""
    times: list[int] = []
    if (notice := notice_at(sub)) is not None:
        times.append(notice)
    if sub.status in (Status.ACTIVE, Status.PAST_DUE, Status.PAUSED) and sub.renew_at is not None:
        times.append(sub.renew_at)
    if sub.status == Status.PAUSED and sub.resumes_at is not None:
        times.append(sub.resumes_at)
    if sub.status in (Status.ACTIVE, Status.PAST_DUE):
        inv = await outstanding(session, sub)
        if inv is not None and inv.next_payment_attempt is not None:
            times.append(inv.next_payment_attempt)
    elif (left := await waiting(session, sub)) is not None and left.next_payment_attempt is not None:
        times.append(left.next_payment_attempt)
    sub.due_at = min(times) if times else None


def line(loaded: Loaded, amount: Decimal, start: int, end: int, *, description: str = "",
         proration: bool = False) -> dict[str, Any]:
    plan = loaded.current
    from server.products.convert import variant_title
    title = variant_title(plan.variant, loaded.option_names)
    return {"description": description or f"{loaded.product.name} ({title}) x {plan.quantity}",
            "product_id": loaded.product.id, "variant_id": plan.variant.id, "product_name": loaded.product.name,
            "variant_title": title, "quantity": plan.quantity, "unit_amount": money_text(plan.variant.price),
            "amount": money_text(amount), "currency": loaded.sub.currency, "period_start": start,
            "period_end": end, "proration": proration}


async def new_invoice(session: AsyncSession, loaded: Loaded, *, reason: str, cycle: int, start: int, end: int,
                      lines: list[dict[str, Any]], status: str, now: int) -> Invoice:
    sub = loaded.sub
    amount = max(sum((Decimal(x["amount"]) for x in lines), Decimal(0)), Decimal(0))
    inv = new_row(
        Invoice, id=new_id("inv"), merchant_id=sub.merchant_id, livemode=sub.livemode, subscription_id=sub.id,
        customer_id=sub.customer_id, amount=amount, currency=sub.currency, decimals=sub.decimals, status=status,
        billing_reason=reason, cycle_number=cycle, period_start=start, period_end=end, lines=lines,
        cycle_key=f"{sub.id}:{cycle}" if reason in ("subscription_create", "subscription_cycle") else None,
        metadata_={}, sort_key=clock.sort_key(), external_id=sub.external_id, created_at=now, updated_at=now)
    if status == InvoiceStatus.PAID:
        inv.paid_at = now
    if status == InvoiceStatus.VOID:
        inv.voided_at = now
    session.add(inv)  # inserted at the next flush; a second invoice of one cycle fails there (cycle_key)
    if status == InvoiceStatus.OPEN and reason != "subscription_create":
        session.info.setdefault(OUTSTANDING, {})[sub.id] = inv
    else:
        _forget(session, inv)
    sub.latest_invoice_id = inv.id
    session.add(sub)
    # The invoice is the same in each of its creation events: shown once, recorded under each type.
    types = ["invoice.created"]
    if status == InvoiceStatus.PAID:
        types += ["invoice.paid", "invoice.payment_succeeded"]
    elif status in (InvoiceStatus.OPEN, InvoiceStatus.VOID, InvoiceStatus.UNCOLLECTIBLE):
        types.append(inv_states.EVENT_TYPES[inv_states.Status(status)])
    await outbox.record_each(session, merchant_id=inv.merchant_id, livemode=inv.livemode, types=types,
                             resource=await invoice_view(session, inv))
    return inv


async def invoice_move(session: AsyncSession, inv: Invoice, event: inv_states.Event, now: int,
                       **facts: Any) -> None:
    before = outbox.snapshot(await invoice_view(session, inv))
    inv.status = inv_states.transition(inv.status, event)
    for name, value in facts.items():
        setattr(inv, name, value)
    inv.updated_at = now
    inv.version += 1
    if inv.status != InvoiceStatus.OPEN:
        inv.next_payment_attempt = None
        inv.mail_due_at = None
    _forget(session, inv)
    session.add(inv)
    await session.flush()
    await record_invoice(session, inv, inv_states.EVENT_TYPES[inv_states.Status(inv.status)], before)
    if inv.status == InvoiceStatus.PAID:
        await record_invoice(session, inv, "invoice.payment_succeeded", before)


async def next_cycle_number(session: AsyncSession, sub: Subscription) -> int:
    """The cycle after the current one and after every cycle invoiced already. A renewal invoice issued but not paid
    holds cycle current + 1 without advancing the current cycle (payment does that); a period that starts anew
    (resume) must not take that cycle again (`cycle_key` is unique), whatever became of its invoice."""
    highest = (await session.exec(select(sa.func.max(Invoice.cycle_number)).where(
        Invoice.subscription_id == sub.id, col(Invoice.cycle_key).is_not(None)))).first()
    return max(sub.current_cycle_number, highest or 0) + 1


def next_period(sub: Subscription, loaded: Loaded) -> tuple[int, int]:
    """The period after the current one, counted from the anchor (month-end clamping anchored on its day)."""
    cycle = loaded.current.cycle
    return (boundary(sub.billing_cycle_anchor, cycle, sub.periods_since_anchor + 1),
            boundary(sub.billing_cycle_anchor, cycle, sub.periods_since_anchor + 2))
