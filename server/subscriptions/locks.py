"""The one lock order of subscriptions, their invoices and the payment intents that pay them (PostgreSQL; SQLite has
one writer at a time and nothing to order).

    payment intent(s)  →  subscription  →  invoice(s)

A payment takes its intent first: the chain watcher, a card's outcome, an intent's cancel or expiry lock the intent
(`settle.lock`), move it, and its events reach the subscription in the same transaction (lifecycle.on_event), which
locks the subscription after. Everything that starts from the subscription and may touch an invoice's intent
(cancel-now, a `void` pause, the scheduler's and the test clock's steps: a period end that cancels, dunning giving
up) must therefore lock the intents first, then the subscription, and read the state only once both are held
(`payments_then_subscription`). Several intents are locked in the order of their ids. The rule under the order: a
path that holds a subscription never waits for an intent's lock. The two orders together could each hold the row
the other waits for, and PostgreSQL would abort one of them ("deadlock detected", a 503 to its caller). The
scheduler's claim (`claim_due`) takes the subscriptions first but waits for nothing (SKIP LOCKED on both).

A path that locks the subscription alone (`subscription`) must touch no intent afterwards, except one it creates.
"""

from __future__ import annotations

from collections import defaultdict

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.payment_intents.models import PaymentIntent
from server.subscriptions.models import Subscription

# The invoices whose intents a subscription-side path may cancel: those not closed yet.
UNCLOSED = (InvoiceStatus.OPEN, InvoiceStatus.DRAFT)


async def subscription(session: AsyncSession, sub_id: str) -> Subscription | None:
    """The subscription alone, locked until the end of the transaction: for a caller that holds the intent already
    (a payment's outbox subscriber) or touches no intent."""
    return await session.get(Subscription, sub_id, with_for_update=True, populate_existing=True)


async def payment_ids(session: AsyncSession, sub_ids: list[str]) -> dict[str, set[str]]:
    """The payment intents of each subscription's invoices that are not closed yet."""
    found: dict[str, set[str]] = defaultdict(set)
    if not sub_ids:
        return found
    rows = await session.exec(select(Invoice.subscription_id, Invoice.payment_intent_id).where(
        col(Invoice.subscription_id).in_(sub_ids), col(Invoice.status).in_(UNCLOSED),
        col(Invoice.payment_intent_id).is_not(None)))
    for sub_id, intent_id in rows:
        if intent_id:
            found[sub_id].add(intent_id)
    return found


async def intents(session: AsyncSession, ids: set[str], *, skip_locked: bool = False) -> set[str]:
    """Lock these payment intents in the order of their ids; the ids locked (with `skip_locked`, those another
    transaction held are left out instead of waited for)."""
    if not ids:
        return set()
    stmt = select(PaymentIntent.id).where(col(PaymentIntent.id).in_(sorted(ids))).order_by(col(PaymentIntent.id))
    return set(await session.exec(stmt.with_for_update(skip_locked=skip_locked)))


async def payments(session: AsyncSession, sub_id: str) -> set[str]:
    """Lock the intents of the subscription's invoices that are not closed yet (before the subscription)."""
    return await intents(session, (await payment_ids(session, [sub_id]))[sub_id])


async def payments_then_subscription(session: AsyncSession, sub_id: str) -> Subscription | None:
    """The subscription locked after the intents of its invoices that are not closed yet, read once both are held.
    An intent made for one of its invoices between the two reads (the merchant sending an invoice) is locked too,
    after: it is brand new, so no payment holds it."""
    held = await payments(session, sub_id)
    sub = await subscription(session, sub_id)
    if sub is not None:
        await intents(session, (await payment_ids(session, [sub_id]))[sub_id] - held)
    return sub


async def claim_due(session: AsyncSession, now: int, batch: int, *, postgres: bool) -> list[Subscription]:
    """The scheduler's claim: up to `batch` subscriptions on the wall clock with something due, locked for this
    transaction. On PostgreSQL nothing here waits (SKIP LOCKED), which keeps the order's rule while taking the
    subscriptions first (so that scheduler processes share the work: each passes by what another claimed): their
    invoices' intents are then taken without waiting either, and a subscription whose intent another transaction
    holds (a payment settling, which may be waiting for this subscription) is left for the next sweep."""
    stmt = (select(Subscription).where(col(Subscription.due_at) <= now, col(Subscription.test_clock).is_(None))
            .order_by(col(Subscription.due_at)).limit(batch))
    if not postgres:
        return list(await session.exec(stmt))
    rows = list(await session.exec(stmt.with_for_update(skip_locked=True)))
    wanted = await payment_ids(session, [s.id for s in rows])
    held = await intents(session, set[str]().union(*wanted.values()), skip_locked=True)
    return [s for s in rows if wanted[s.id] <= held]
