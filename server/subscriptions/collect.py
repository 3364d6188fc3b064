"""Collecting an invoice: what a renewal, a resume or a plan change does once the invoice exists.

Crypto (`send_invoice`): the invoice gets its own payment intent and `payment_url` in the same transaction, and is
marked for e-mailing (`mail_due_at`); the mail itself is sent after the commit (`send_mails`). Card
(`charge_automatically`): the charge is a callout after the commit through the `CardCharger` seam
(server/subscriptions/card_rail.py over the cards package), with the invoice id and the attempt number as idempotency
key; its outcome is recorded in the charge's own transaction (`card_outcome`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.header import Header
from email.message import Message
from email.mime.text import MIMEText
from typing import Protocol

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.clock import now_of
from server.customers.models import Customer
from server.db import Database
from server.db.construct import new_row
from server.ids import new_id
from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.mail import FAST_COMPAT32, FileMailer, Mailer, MailError
from server.merchants.models import Merchant
from server.payment_intents import settle
from server.payment_intents.aggregate import Loaded as IntentLoaded
from server.payment_intents.env import Env
from server.payment_intents.models import Charge, PaymentIntent
from server.payment_intents.states import ChargeStatus
from server.payment_intents.states import Status as IntentStatus
from server.subscriptions import billing, closing, locks, session_rows
from server.subscriptions.billing import CARD_RETRY_DAYS, DAY, DUE_DAYS, FINAL_DAYS, Callout
from server.subscriptions.models import Subscription
from server.subscriptions.pricing import display

log = logging.getLogger("paygate.subscriptions")
MAIL_LEASE_SECONDS = 600
# A charge is leased briefly: an attempt interrupted by a crash is made again soon, under the same key (the intent
# lock and the provider's idempotency make a late twin a no-op).
CHARGE_LEASE_SECONDS = 60
# CardResult.failure_code of a charge the provider left Pending: 3-D Secure asked for (the payer must act), or
# still processing (its webhook decides).
ACTION_REQUIRED = "authentication_required"
PROCESSING = "processing"


@dataclass(frozen=True)
class CardResult:
    succeeded: bool
    failure_code: str = ""
    failure_message: str = ""


Locked = Callable[[AsyncSession], Awaitable[None]]
Outcome = Callable[[AsyncSession, CardResult], Awaitable[None]]


class CardCharger(Protocol):
    """The card rail's off-session charge of a saved card, paying one payment intent (the invoice's own)
    (server/subscriptions/card_rail.py `ProviderCards`). The intent's Success reaches the invoice through the outbox
    like any payment (lifecycle.on_event); the result tells a decline apart.

    The charger runs its own units of work, since the provider is never called inside one (DESIGN §16): each
    starts with `lock(session)` (the caller's lock order), and the one that learns the result ends with
    `outcome(session, result)`, so the result is recorded with the charge's."""

    async def charge_saved_card(self, db: Database, intent_id: str, payment_method_id: str, idempotency_key: str, *,
                                lock: Locked, outcome: Outcome) -> None: ...


@dataclass(frozen=True)
class Collector:
    """What collection needs besides the database, passed in explicitly (no module globals)."""

    env: Env
    mailer: Mailer
    cards: CardCharger | None = None


def env_of(collector: Collector | None) -> Env:
    if collector is None:
        raise RuntimeError("closing or collecting an invoice needs the payment intents' Env")
    return collector.env


def payment_url(env: Env, intent: PaymentIntent) -> str:
    secret = env.secrets.of(intent.id, intent.livemode)
    return f"{env.settings.checkout_base}/pay/{intent.id}?client_secret={secret}"


async def open_intent(session: AsyncSession, env: Env, inv: Invoice, expires_at: int) -> PaymentIntent:
    """The invoice's own payment intent (created once)."""
    if inv.payment_intent_id:
        existing = await session.get(PaymentIntent, inv.payment_intent_id)
        if existing is not None:
            return existing
    now = now_of(session)
    intent = new_row(
        PaymentIntent, id=new_id("pi"), merchant_id=inv.merchant_id, livemode=inv.livemode, amount=inv.amount,
        currency=inv.currency, customer_id=inv.customer_id, description=f"Invoice {inv.id}",
        status=IntentStatus.REQUIRES_PAYMENT_METHOD, expired_at=max(expires_at, now + 3600), created=now,
        updated=now, metadata_={}, sort_key=clock.sort_key())
    session.add(intent)  # inserted with the invoice at the next flush
    inv.payment_intent_id = intent.id
    inv.payment_url = payment_url(env, intent)
    session.add(inv)
    # A new intent has no charges, refunds or transfers: its shape needs only the customer and the merchant.
    customer = await session_rows.get(session, Customer, inv.customer_id) if inv.customer_id else None
    merchant = await session_rows.get(session, Merchant, inv.merchant_id)
    loaded = IntentLoaded(intent=intent, customer=customer, merchant_name=merchant.name if merchant else "",
                          invoice=inv)
    await settle.record(session, env, loaded, "payment_intent.created", None)
    return intent


def final_time(inv: Invoice) -> int:
    """When an unpaid crypto invoice is given up on: 7 days after its period started (the old period end)."""
    return (inv.period_start or inv.created_at) + FINAL_DAYS * DAY


async def collect(session: AsyncSession, collector: Collector | None, sub: Subscription, inv: Invoice,
                  at: int) -> list[Callout]:
    """Start collecting an open invoice at `at`."""
    if sub.collection_method == "charge_automatically" and sub.default_payment_method_id:
        inv.next_payment_attempt = at
        inv.due_date = at
        session.add(inv)
        return [Callout("charge", inv.id)]
    if collector is None:
        raise RuntimeError("collecting a crypto invoice needs the payment intents' Env")
    await open_intent(session, collector.env, inv, final_time(inv))
    inv.due_date = at + DUE_DAYS * DAY
    inv.next_payment_attempt = inv.due_date
    # Leased to the callout that e-mails it right after this commit (wall clock, like the mail job's claim): if
    # this process dies first, the lease lapses and the mail job sends it. The e-mail is built now, from the rows
    # at hand, so that the callout need not read them again.
    inv.mail_due_at = now_of(session) + MAIL_LEASE_SECONDS
    session.add(inv)
    customer = await session_rows.get(session, Customer, inv.customer_id) if inv.customer_id else None
    merchant = await session_rows.get(session, Merchant, inv.merchant_id)
    return [Callout("mail", inv.id, mail_of(inv, customer, merchant))]


# ---------------------------------------------------------------- e-mail


def invoice_mail(inv: Invoice, merchant_name: str, to: str) -> Message:
    """The invoice's e-mail. Built as a plain text/plain message (the legacy `compat32` policy): a renewal sweep builds
    thousands, and the modern policy's header parsing cost more than the rest of the renewal. Headers that carry
    someone else's text are encoded words (RFC 2047), so a line break in a merchant's name can add no header."""
    amount = display(inv.amount, inv.currency, inv.decimals)
    merchant_name = " ".join(merchant_name.split())
    body = (f"Hello,\n\n{merchant_name} has a new invoice for you: {amount} ({inv.currency}), "
            f"billing cycle {inv.cycle_number}.\n\nPay it here:\n\n    {inv.payment_url}\n\n"
            "If it is not paid within 3 days the subscription falls past due, and it ends 7 days after the "
            "billing date.\n")
    mail = _ascii_text(body) if body.isascii() else MIMEText(body, "plain", "utf-8", policy=FAST_COMPAT32)
    mail["To"] = "".join(to.split())  # an address has no white space; a line break would start a header
    subject = f"{merchant_name}: invoice {inv.id} for {amount}"
    mail["Subject"] = subject if subject.isascii() else Header(subject, "utf-8").encode()
    return mail


def _ascii_text(body: str) -> Message:
    """`MIMEText(body, "plain", "us-ascii", policy=FAST_COMPAT32)` for an ASCII body, the same headers and bytes
    (tests/unit/subscriptions/test_invoice_mail.py) at a twentieth of the cost: MIMEText works out the charset's
    encodings for each message."""
    mail = Message(policy=FAST_COMPAT32)
    mail["Content-Type"] = 'text/plain; charset="us-ascii"'
    mail["MIME-Version"] = "1.0"
    mail["Content-Transfer-Encoding"] = "7bit"
    mail.set_payload(body)
    return mail


def mail_of(inv: Invoice, customer: Customer | None, merchant: Merchant | None) -> Message | None:
    """The invoice's e-mail, or None when there is none to send (not open, no payment link, no address)."""
    if inv.status != InvoiceStatus.OPEN or not inv.payment_url or customer is None or not customer.email:
        return None
    return invoice_mail(inv, merchant.name if merchant else "", customer.email)


async def send_mails(db: Database, mailer: Mailer, invoice_ids: list[str], *, leased: bool = False) -> int:
    """E-mail invoices' payment links: read (and, unless the caller holds their lease already, leased) in one
    transaction, sent after its commit, marked sent in a second one; a sender that dies mid-send leaves them to the
    mail job once the lease lapses. Batched: one query per table, one UPDATE per step. The number sent.

    Leasing takes only the invoices still due once their rows are locked: the ids were read before, and another
    mail job, or the merchant's `send` (which leases to its own request), may have taken them meanwhile."""
    messages: dict[str, Message] = {}
    async with db.transaction() as session:
        stmt = select(Invoice).where(col(Invoice.id).in_(invoice_ids))
        invs = list(await session.exec(stmt if leased else stmt.with_for_update()))
        if not leased:
            now = db.clock.now()
            invs = [inv for inv in invs if inv.mail_due_at is not None and inv.mail_due_at <= now]
        customers = {c.id: c for c in await session.exec(select(Customer).where(
            col(Customer.id).in_({i.customer_id for i in invs if i.customer_id})))}
        merchants = {m.id: m for m in await session.exec(select(Merchant).where(
            col(Merchant.id).in_({i.merchant_id for i in invs})))}
        unmailable: list[str] = []
        for inv in invs:
            message = mail_of(inv, customers.get(inv.customer_id or ""), merchants.get(inv.merchant_id))
            if message is None:
                if inv.mail_due_at is not None:
                    unmailable.append(inv.id)
                    log.info("invoice not e-mailed (not open, or no address)", extra={"invoice": inv.id})
                continue
            messages[inv.id] = message
        if unmailable:
            await session.exec(sa.update(Invoice).where(col(Invoice.id).in_(unmailable)).values(mail_due_at=None))
        if messages and not leased:
            await session.exec(sa.update(Invoice).where(col(Invoice.id).in_(list(messages)))
                               .values(mail_due_at=db.clock.now() + MAIL_LEASE_SECONDS))
    return await deliver(db, mailer, messages)


async def send_built(db: Database, mailer: Mailer, callouts: list[Callout]) -> int:
    """The `mail` callouts of a committed transaction: those that carry their e-mail are sent as built (their
    invoices leased by that transaction), the others are read and built first (`send_mails`). The number sent."""
    built = {c.invoice_id: c.message for c in callouts if c.message is not None}
    others = [c.invoice_id for c in callouts if c.message is None and c.invoice_id not in built]
    sent = await deliver(db, mailer, built) if built else 0
    return sent + (await send_mails(db, mailer, others, leased=True) if others else 0)


async def deliver(db: Database, mailer: Mailer, messages: dict[str, Message]) -> int:
    """Hand each leased invoice's e-mail to the mailer (all at once to a `FileMailer`), then mark those sent in one
    transaction."""
    sent: list[str] = []
    if isinstance(mailer, FileMailer):
        ids = list(messages)
        sent = ids[:await mailer.send_many([messages[i] for i in ids])]
    else:
        for invoice_id, message in messages.items():
            try:
                await mailer.send(message)
            except MailError:
                continue
            sent.append(invoice_id)
    if sent:
        async with db.transaction() as session:
            await session.exec(sa.update(Invoice).where(col(Invoice.id).in_(sent))
                               .values(mail_due_at=None, sent_at=db.clock.now()))
    return len(sent)


# ---------------------------------------------------------------- cards


async def decided_attempts(session: AsyncSession, intent_id: str, invoice_id: str) -> int:
    """Off-session attempts of an invoice the card provider refused (its intent's failed charges under the
    invoice's keys). An attempt interrupted before its outcome was committed is not counted: it is made again under
    the same key, which the provider answers once."""
    found = await session.exec(select(sa.func.count()).select_from(Charge).where(
        Charge.payment_intent_id == intent_id, col(Charge.idempotency_key).startswith(f"{invoice_id}-"),
        Charge.status == ChargeStatus.FAILED))
    return int(found.one())


async def charge(db: Database, collector: Collector, invoice_id: str) -> None:
    """One off-session attempt for an invoice. A first transaction leases it (`next_payment_attempt` moves past the
    lease, so no other sweep takes it meanwhile) and makes the invoice's intent; the card charger then commits the
    charge, charges the card with no transaction open, and records the outcome on the intent, the invoice and the
    subscription together. The idempotency key is the
    invoice id and the attempt number, counted from the refused attempts: a replayed or interrupted attempt never
    charges twice, a retry after a decline is a new charge."""
    cards = collector.cards
    if cards is None:
        log.warning("card renewal skipped: no card rail in this process", extra={"invoice": invoice_id})
        return
    async with db.transaction() as session:
        sub_id = (await session.exec(select(Invoice.subscription_id).where(Invoice.id == invoice_id))).first()
        # Locks no intent after it: the invoice's intent is read or made here, never locked (locks.py).
        sub = await locks.subscription(session, sub_id) if sub_id else None
        inv = await session.get(Invoice, invoice_id, with_for_update=True, populate_existing=True)
        if sub is None or inv is None or inv.status != InvoiceStatus.OPEN or not sub.default_payment_method_id:
            return
        intent = await open_intent(session, collector.env, inv, final_time(inv))
        attempt = await decided_attempts(session, intent.id, inv.id) + 1
        inv.attempt_count = attempt
        inv.next_payment_attempt = sub.time_at(now_of(session)) + CHARGE_LEASE_SECONDS
        session.add(inv)
        await billing.refresh_due(session, sub)
        session.add(sub)
        key, method = f"{inv.id}-{attempt}", sub.default_payment_method_id
    sub_id = sub.id

    async def lock(session: AsyncSession) -> None:
        # The lock order (locks.py): the intents the outcome may cancel (giving up closes the subscription's open
        # invoices), then the subscription (its outcome, after the charge).
        await locks.payments(session, sub_id)

    async def outcome(session: AsyncSession, result: CardResult) -> None:
        await card_outcome(session, collector.env, invoice_id, result)

    await cards.charge_saved_card(db, intent.id, method, key, lock=lock, outcome=outcome)


async def card_outcome(session: AsyncSession, env: Env, invoice_id: str, result: CardResult) -> None:
    """What one off-session attempt means for the invoice and its subscription. Paid: the intent's Success has
    paid the invoice already (lifecycle.on_event, in this transaction). Refused: `invoice.payment_failed` (or
    `.payment_action_required` for 3-D Secure), past_due, and the next retry (1, 3, 5 days after the period end);
    after the last, the subscription is canceled (`payment_failed`) — once no payment is under way
    (closing.give_up). Runs in the charge's transaction, which holds the subscription's intents already."""
    from server.subscriptions import lifecycle
    from server.subscriptions.aggregate import load
    from server.subscriptions.states import Event, Status
    sub_id = (await session.exec(select(Invoice.subscription_id).where(Invoice.id == invoice_id))).first()
    sub = await locks.subscription(session, sub_id) if sub_id else None
    inv = await session.get(Invoice, invoice_id, with_for_update=True, populate_existing=True)
    if sub is None or inv is None or inv.status != InvoiceStatus.OPEN:
        return
    now = sub.time_at(now_of(session))
    if result.succeeded:
        await lifecycle.invoice_paid(session, sub, inv, now)
        return
    start = inv.period_start or inv.created_at
    later = [t for t in (start + d * DAY for d in CARD_RETRY_DAYS) if t > now]
    if result.failure_code == PROCESSING:
        # Neither paid nor refused yet: the provider's webhook decides; the next retry looks again.
        inv.next_payment_attempt = later[0] if later else now + CHARGE_LEASE_SECONDS
        session.add(inv)
        await billing.refresh_due(session, sub)
        session.add(sub)
        return
    kind = "invoice.payment_action_required" if result.failure_code == ACTION_REQUIRED else "invoice.payment_failed"
    await billing.record_invoice(session, inv, kind)
    loaded = await load(session, sub)
    if later and inv.attempt_count <= len(CARD_RETRY_DAYS):
        inv.next_payment_attempt = later[0]
        session.add(inv)
        if sub.status == Status.ACTIVE:
            await billing.move(session, loaded, Event.PAYMENT_OVERDUE, now)
        else:
            await billing.refresh_due(session, sub)
            session.add(sub)
        return
    await closing.give_up(session, env, loaded, inv, now)
