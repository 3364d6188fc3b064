"""What falls due for a subscription, and the steps that do it (DESIGN §8).

Kinds of step, each at its own time:
* PERIOD_END (`renew_at`): a scheduled cancel ends the subscription; else a pending plan change applies, the next
  cycle's invoice is issued (at most one per cycle: `cycle_key` is unique) and collected — or, while paused,
  created in the state the pause behaviour names and the period moves on;
* DUNNING (the outstanding invoice's `next_payment_attempt`): a crypto invoice unpaid at its due date makes the
  subscription past_due, and 7 days after the period end it is given up on; a card is charged (again). While the
  invoice's payment is under way (its intent Processing) dunning does nothing but look again later
  (server/subscriptions/closing.py);
* CLOSE (`next_payment_attempt` of an invoice an ended subscription left open while its payment was under way):
  voided once that payment failed;
* RESUME (`resumes_at` while paused): the subscription resumes, a new period starts, its invoice is collected.

`run_due(session, …, until)` runs, in time order, every step due up to `until` with that step's time as "now". The
scheduler job claims subscriptions by `due_at` (locks.claim_due: FOR UPDATE SKIP LOCKED on PostgreSQL, their
invoices' intents too; SQLite has one writer) and the test clock runs the same steps for one subscription up to its
`to`.
"""

from __future__ import annotations

import asyncio
import logging
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.db import Database
from server.events import outbox
from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.payment_intents.env import Env
from server.payment_intents.states import Status as IntentStatus
from server.subscriptions import billing, closing, locks
from server.subscriptions.aggregate import Loaded, load
from server.subscriptions.billing import Callout
from server.subscriptions.collect import Collector, charge, collect, env_of, final_time, send_built, send_mails
from server.subscriptions.cycles import boundary
from server.subscriptions.models import Subscription
from server.subscriptions.states import Event, Status

log = logging.getLogger("paygate.subscriptions")
BATCH = 100
INTERVAL_SECONDS = 5
RETRY_SECONDS = 300  # a subscription whose steps failed is tried again this much later
MAX_STEPS = 1000  # per subscription and run: a two-year test clock on a daily plan is 730 steps
PAUSE_INVOICE_STATUS = {"void": InvoiceStatus.VOID, "keep_as_draft": InvoiceStatus.DRAFT,
                        "mark_uncollectible": InvoiceStatus.UNCOLLECTIBLE, "free": InvoiceStatus.PAID}


class Step(StrEnum):
    RESUME = "resume"
    PERIOD_END = "period_end"
    DUNNING = "dunning"
    CLOSE = "close"
    NOTICE = "notice"


async def next_step(session: AsyncSession, sub: Subscription, skip: frozenset[str] = frozenset()
                    ) -> tuple[int, Step] | None:
    """The earliest step due for `sub` (a resume before a period end at the same time). `skip`: invoices that
    waited on their payment earlier in this run, not looked at again in it."""
    candidates: list[tuple[int, int, Step]] = []
    if sub.status == Status.PAUSED and sub.resumes_at is not None:
        candidates.append((sub.resumes_at, 0, Step.RESUME))
    if sub.status in (Status.ACTIVE, Status.PAST_DUE, Status.PAUSED) and sub.renew_at is not None:
        candidates.append((sub.renew_at, 1, Step.PERIOD_END))
    if sub.status in (Status.ACTIVE, Status.PAST_DUE):
        inv = await billing.outstanding(session, sub)
        if inv is not None and inv.next_payment_attempt is not None and inv.id not in skip:
            candidates.append((inv.next_payment_attempt, 2, Step.DUNNING))
    elif (left := await billing.waiting(session, sub)) is not None and left.next_payment_attempt is not None \
            and left.id not in skip:
        candidates.append((left.next_payment_attempt, 2, Step.CLOSE))
    if (notice := billing.notice_at(sub)) is not None:
        candidates.append((notice, 3, Step.NOTICE))
    if not candidates:
        return None
    at, _, step = min(candidates)
    return at, step


async def run_due(session: AsyncSession, collector: Collector | None, sub: Subscription, until: int,
                  *, max_steps: int = MAX_STEPS) -> list[Callout]:
    """Every step due for `sub` up to `until`, in time order, in the caller's transaction."""
    callouts: list[Callout] = []
    for _ in range(max_steps):
        due = await next_step(session, sub, waited(session))
        if due is None or due[0] > until:
            break
        callouts += await run_step(session, collector, sub, due[1], due[0])
        if any(c.kind == "charge" for c in callouts):
            break  # the charge's outcome decides what comes next
    await billing.refresh_due(session, sub)
    session.add(sub)
    return callouts


async def run_step(session: AsyncSession, collector: Collector | None, sub: Subscription, step: Step,
                   at: int) -> list[Callout]:
    if sub.test_clock is not None:
        sub.test_clock = max(sub.test_clock, at)
    loaded = await load(session, sub)
    if step is Step.RESUME:
        return await resume(session, collector, loaded, at)
    if step is Step.PERIOD_END:
        return await period_end(session, collector, loaded, at)
    if step is Step.NOTICE:
        await notice(session, loaded)
        return []
    if step is Step.CLOSE:
        left = await billing.waiting(session, sub)
        if left is not None:
            await closing.close_waiting(session, env_of(collector), loaded, left, at)
        return []
    return await dunning(session, env_of(collector), loaded, at)


def waited(session: AsyncSession) -> frozenset[str]:
    """The invoices that waited on their payment in this unit of work (closing.wait_for_payment)."""
    return frozenset(session.info.get(closing.WAITED, ()))


def _advance_facts(sub: Subscription, start: int, end: int, cycle: int) -> dict[str, Any]:
    return {"current_period_start": start, "current_period_end": end, "current_cycle_number": cycle,
            "periods_since_anchor": sub.periods_since_anchor + 1, "renew_at": end}


async def apply_pending(session: AsyncSession, loaded: Loaded) -> Loaded:
    """A deferred plan change takes effect at the period end it was scheduled for."""
    sub, pending = loaded.sub, loaded.sub.pending_update
    if not pending or loaded.target is None:
        return loaded
    old_cycle = loaded.current.cycle
    sub.selling_plan_id, sub.variant_id = pending["target_selling_plan_id"], pending["target_variant_id"]
    sub.quantity = int(pending["target_quantity"])
    if pending.get("metadata") is not None:
        sub.metadata_ = dict(pending["metadata"])
    sub.pending_update = None
    if loaded.target.cycle != old_cycle:
        # A new cycle length counts from this period end: it is the anchor now (the current period precedes it).
        sub.billing_cycle_anchor, sub.periods_since_anchor = sub.current_period_end, -1
    session.add(sub)
    await session.flush()
    return await load(session, sub)


async def period_end(session: AsyncSession, collector: Collector | None, loaded: Loaded, at: int) -> list[Callout]:
    sub = loaded.sub
    if sub.cancel_at_period_end:
        await closing.void_pending(session, env_of(collector), sub, at)
        await billing.move(session, loaded, Event.PERIOD_END_CANCEL, at, ended_at=at, renew_at=None)
        return []
    loaded = await apply_pending(session, loaded)
    n = sub.current_cycle_number + 1
    start, end = billing.next_period(sub, loaded)
    if sub.status == Status.PAUSED:
        behavior = sub.pause_collection_behavior or "void"
        status = PAUSE_INVOICE_STATUS[behavior]
        amount = Decimal(0) if behavior == "free" else loaded.current.tier(n).final_price
        await billing.new_invoice(session, loaded, reason="subscription_cycle", cycle=n, start=start, end=end,
                                  lines=[billing.line(loaded, amount, start, end)], status=status, now=at)
        await billing.move(session, loaded, Event.RENEW, at, **_advance_facts(sub, start, end, n))
        return []
    price = loaded.current.tier(n).final_price
    credit = min(sub.credit_balance, price)
    lines = [billing.line(loaded, price, start, end)]
    if credit > 0:
        lines.append(billing.line(loaded, -credit, start, end, description="Credit from a plan change",
                                  proration=True))
        sub.credit_balance -= credit
    if price - credit <= 0:
        await billing.new_invoice(session, loaded, reason="subscription_cycle", cycle=n, start=start, end=end,
                                  lines=lines, status=InvoiceStatus.PAID, now=at)
        await billing.move(session, loaded, Event.RENEW, at, **_advance_facts(sub, start, end, n))
        return []
    inv = await billing.new_invoice(session, loaded, reason="subscription_cycle", cycle=n, start=start, end=end,
                                    lines=lines, status=InvoiceStatus.OPEN, now=at)
    callouts = await collect(session, collector, sub, inv, at)
    await billing.move(session, loaded, Event.RENEW, at, renew_at=None)
    return callouts


async def notice(session: AsyncSession, loaded: Loaded) -> None:
    """Advance notices of the coming period end, each once (`notified_for`): `subscription.trial_will_end` when it
    ends a trial, `invoice.upcoming` (the invoice the renewal will issue, which has no id yet) unless a cancel is
    scheduled."""
    sub = loaded.sub
    if billing.in_trial_end(sub):
        await billing.record(session, loaded, "subscription.trial_will_end")
    if not sub.cancel_at_period_end:
        await billing.record_upcoming(session, loaded)
    sub.notified_for = sub.renew_at
    session.add(sub)


async def dunning(session: AsyncSession, env: Env, loaded: Loaded, at: int) -> list[Callout]:
    sub = loaded.sub
    inv = await billing.outstanding(session, sub)
    if inv is None:
        return []
    intent = await closing.intent_of(session, inv)
    if intent is not None and intent.status == IntentStatus.PROCESSING:
        # The payer's payment is under way: no card retry (it would be refused), no past_due, no giving up; it
        # decides, or dunning goes on once it failed.
        closing.wait_for_payment(session, inv, at)
        await billing.refresh_due(session, sub)
        return []
    if sub.collection_method == "charge_automatically" and sub.default_payment_method_id:
        return [Callout("charge", inv.id)]
    if at >= final_time(inv):
        await closing.give_up(session, env, loaded, inv, at)
        return []
    inv.next_payment_attempt = final_time(inv)
    inv.attempt_count += 1
    session.add(inv)
    await billing.record_invoice(session, inv, "invoice.payment_failed")
    if sub.status == Status.ACTIVE:
        await billing.move(session, loaded, Event.PAYMENT_OVERDUE, at)
    return []


async def resume(session: AsyncSession, collector: Collector | None, loaded: Loaded, at: int) -> list[Callout]:
    """Resume (manual or at resumes_at): a new period starts at `at`; its invoice is issued and collected at once.
    Invoices from before are left as the pause left them: drafts of a keep_as_draft pause stay drafts, and a renewal
    still unpaid keeps its cycle (the new period takes the one after)."""
    sub = loaded.sub
    n = await billing.next_cycle_number(session, sub)
    end = boundary(at, loaded.current.cycle, 1)
    await billing.move(session, loaded, Event.RESUME, at, paused_at=None, pause_collection_behavior=None,
                       resumes_at=None, billing_cycle_anchor=at, periods_since_anchor=0, current_period_start=at,
                       current_period_end=end, current_cycle_number=n, renew_at=end)
    price = loaded.current.tier(n).final_price
    credit = min(sub.credit_balance, price)
    lines = [billing.line(loaded, price, at, end)]
    if credit > 0:
        lines.append(billing.line(loaded, -credit, at, end, description="Credit from a plan change", proration=True))
        sub.credit_balance -= credit
    status = InvoiceStatus.PAID if price - credit <= 0 else InvoiceStatus.OPEN
    inv = await billing.new_invoice(session, loaded, reason="subscription_cycle", cycle=n, start=at, end=end,
                                    lines=lines, status=status, now=at)
    if status == InvoiceStatus.PAID:
        return []
    sub.renew_at = None  # the next period end waits for this invoice
    callouts = await collect(session, collector, sub, inv, at)
    await billing.refresh_due(session, sub)
    session.add(sub)
    return callouts


async def run_callouts(db: Database, collector: Collector | None, callouts: list[Callout]) -> None:
    """After the commit: e-mails (together) and card charges (each recorded in its own transaction)."""
    await _mail(db, collector, callouts)
    await _charge(db, collector, callouts)


async def _mail(db: Database, collector: Collector | None, callouts: list[Callout]) -> None:
    mails = [c for c in callouts if c.kind == "mail"]
    if mails and collector is not None:
        try:
            await send_built(db, collector.mailer, mails)  # collect() leased them to us
        except Exception:  # the leases bring them back
            log.exception("invoice e-mails failed", extra={"count": len(mails)})


async def _charge(db: Database, collector: Collector | None, callouts: list[Callout]) -> None:
    for c in callouts:
        try:
            if c.kind == "charge" and collector is not None:
                await charge(db, collector, c.invoice_id)
        except Exception:  # one invoice's failure must not stop the others; the lease brings it back
            log.exception("subscription callout failed", extra={"invoice": c.invoice_id, "kind": c.kind})


async def renew_due(db: Database, collector: Collector | None, now: int | None = None,
                    *, batch: int = BATCH) -> int:
    """The scheduler's sweep: every subscription (on the wall clock) with something due, in batches; the number
    of subscriptions handled. A batch's e-mails go out while the next batch is worked out, one batch's at a time:
    the batch's commit leased their invoices to this sweep, so a crash that leaves one unsent leaves it to the mail
    job once the lease lapses. All are handed over (or have failed) before the sweep returns."""
    now = db.clock.now() if now is None else now
    handled = 0
    mailing: asyncio.Task[None] | None = None
    try:
        while True:
            claimed, callouts = await _sweep_batch(db, collector, now, batch)
            if mailing is not None:
                await mailing
            mailing = asyncio.create_task(_mail(db, collector, callouts))
            await _charge(db, collector, callouts)
            handled += claimed
            if claimed < batch:
                break
    finally:
        if mailing is not None:
            await mailing
    await send_due_mail(db, collector, now)
    return handled


async def _sweep_batch(db: Database, collector: Collector | None, now: int, batch: int) -> tuple[int, list[Callout]]:
    """One claimed batch, in one transaction: the number claimed and the callouts. The batch is written in one
    flush; should any subscription in it fail, the whole batch is rolled back and claimed again to be worked
    subscription by subscription (`_batch_one_by_one`), so that a broken subscription holds up only itself and not,
    from the head of every batch (the oldest due_at), the renewals of every merchant."""
    try:
        async with db.transaction() as session:
            # A subscription left out of a full batch (its payment settling) waits for the next sweep.
            rows = await locks.claim_due(session, now, batch, postgres=db.is_postgres)
            # One batch, one flush: the batch's invoices, intents, events and subscription updates are written
            # together at the commit (or before a query that needs them), not row by row.
            session.info[outbox.DEFER_FLUSH] = True
            await billing.prefetch_outstanding(session, rows)
            callouts: list[Callout] = []
            for sub in rows:
                callouts += await run_due(session, collector, sub, now)
        return len(rows), callouts
    except Exception:
        log.warning("renewal batch failed; working it subscription by subscription", exc_info=True)
    return await _batch_one_by_one(db, collector, now, batch)


async def _batch_one_by_one(db: Database, collector: Collector | None, now: int, batch: int
                            ) -> tuple[int, list[Callout]]:
    """A batch claimed like any other (the same locks), each subscription's steps in a SAVEPOINT of their own: one
    that fails is rolled back alone, logged, and put off until `RETRY_SECONDS` later, when it is tried again."""
    async with db.transaction() as session:
        rows = await locks.claim_due(session, now, batch, postgres=db.is_postgres)
        # Events are written as they are recorded, inside the savepoint that may undo them (deferred, they would
        # outlive a rolled-back savepoint).
        session.info[outbox.DEFER_FLUSH] = False
        callouts: list[Callout] = []
        for sub in rows:
            callouts += await _run_isolated(session, collector, sub, now)
    return len(rows), callouts


async def _run_isolated(session: AsyncSession, collector: Collector | None, sub: Subscription,
                        now: int) -> list[Callout]:
    sub_id = sub.id  # read before a rollback expires the row
    try:
        async with session.begin_nested():
            return await run_due(session, collector, sub, now)
    except Exception:
        retry_at = now + RETRY_SECONDS
        log.exception("subscription step failed; put off", extra={"subscription": sub_id, "retry_at": retry_at})
        await _put_off(session, sub_id, retry_at)
        return []


async def _put_off(session: AsyncSession, sub_id: str, retry_at: int) -> None:
    """The failed subscription is due again at `retry_at`, not before: never dropped (its due step is still there
    to be found then), and no longer at the head of every batch. Anything done to it meanwhile (an API call) works
    out its due_at afresh."""
    session.info.get(billing.OUTSTANDING, {}).pop(sub_id, None)  # what the undone steps left there
    sub = await session.get(Subscription, sub_id, populate_existing=True)
    if sub is not None:
        sub.due_at = retry_at
        session.add(sub)


async def send_due_mail(db: Database, collector: Collector | None, now: int) -> int:
    """Invoices whose e-mail is due (never sent, or a sender died mid-send and its lease lapsed)."""
    if collector is None:
        return 0
    async with db.read() as session:
        ids = list(await session.exec(select(Invoice.id).where(col(Invoice.mail_due_at) <= now,
                                                               Invoice.status == InvoiceStatus.OPEN).limit(BATCH)))
    return await send_mails(db, collector.mailer, ids) if ids else 0


async def advance_clock(db: Database, collector: Collector | None, sub_id: str, to: int) -> None:
    """The test clock: every step due for one subscription up to `to`, in time order, each in its own transaction
    followed by its callouts (the same code the scheduler runs); then the clock reads `to`. An invoice that waits on
    its payment under way is looked at once per advance: the payment moves on the wall clock, not on this one."""
    skip: frozenset[str] = frozenset()
    for _ in range(MAX_STEPS):
        callouts: list[Callout] = []
        async with db.transaction() as session:
            sub = await locks.payments_then_subscription(session, sub_id)
            if sub is None:
                return
            due = await next_step(session, sub, skip)
            if due is None or due[0] > to:
                sub.test_clock = max(sub.test_clock or to, to)
                await billing.refresh_due(session, sub)
                session.add(sub)
                return
            callouts = await run_step(session, collector, sub, due[1], max(due[0], sub.test_clock or due[0]))
            await billing.refresh_due(session, sub)
            session.add(sub)
            skip |= waited(session)
        await run_callouts(db, collector, callouts)
    log.warning("test clock stopped after too many steps", extra={"subscription": sub_id})
