"""Closing an invoice unpaid — void, or uncollectible when dunning gives up — and the payment that makes a close wait.

A closed invoice takes no money: its payment intent is canceled in the same transaction, through the intent's own
cancel (its rules, its `payment_intent.canceled`), so its payment_url answers 409. What the intent allows decides:

    the invoice's intent         the merchant's void (API)    a close the gateway makes (cancel-now, a period end
                                                               that cancels, a `void` pause, dunning giving up)
    none, RequiresPaymentMethod  intent canceled, closed      intent canceled, closed
    Processing (money moving)    409 invoice_not_open         waits: the invoice stays open and is looked at again
                                                              (`RECHECK_SECONDS`); its payment pays it if it
                                                              succeeds; once it failed the invoice is closed and
                                                              its intent canceled, at the scheduler's next pass
                                                              (the failure makes the close due at once:
                                                              lifecycle.on_payment_stopped)
    PartialPaid, or funds the    409 invoice_not_open         closed; the intent keeps what arrived (refundable),
    intent cannot be canceled                                 opens no new attempt and its page shows the session
    with (frozen by AML)                                      ended (attempts.closed_invoice); money still sent
                                                              to an open quote never pays the invoice
                                                              (lifecycle.on_event pays open invoices only)
    Success, Refunded            409 invoice_not_open         left to its payment, which paid it

Dunning waits the same way (server/subscriptions/renewal.py): while the outstanding invoice's payment is under way
it neither retries a card, nor makes the subscription past_due, nor gives up; the subscription is canceled
(`payment_failed`) only at a look after that payment failed; if it succeeds, it pays the invoice and the
subscription goes on (active again).

A subscription that ends (canceled now, or at a period end) leaves an invoice whose payment is under way open until
that payment decides: `billing.waiting` finds it and the CLOSE step (server/subscriptions/renewal.py) closes it.

Callers hold the intents' locks before the subscription's (server/subscriptions/locks.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.context import Caller
from server.invoices import states as inv_states
from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.payment_intents import settle
from server.payment_intents.env import Env
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import Status as IntentStatus
from server.payment_intents.states import UnexpectedState as IntentUnexpectedState
from server.subscriptions import billing
from server.subscriptions.aggregate import Loaded
from server.subscriptions.models import Subscription
from server.subscriptions.states import Event, Status

log = logging.getLogger("paygate.subscriptions")

# An invoice closed without being paid takes no more money: its intent is canceled with this reason.
CLOSED_REASONS = {inv_states.Event.VOID: "invoice_void", inv_states.Event.MARK_UNCOLLECTIBLE: "invoice_uncollectible"}
# Money on its way or received: the merchant cannot close the invoice unpaid (409 invoice_not_open).
PAYMENT_UNDER_WAY = frozenset({IntentStatus.PROCESSING, IntentStatus.PARTIAL_PAID, IntentStatus.SUCCESS,
                               IntentStatus.REFUNDED})
# Money paid: the payment settled the invoice (lifecycle.on_event), nothing is closed.
PAID = frozenset({IntentStatus.SUCCESS, IntentStatus.REFUNDED})
# How often an invoice whose close or dunning waits on a payment under way is looked at again, in the
# subscription's time. A crypto payment confirms in minutes; a card's processing is decided by its provider's webhook.
RECHECK_SECONDS = 60
# session.info: the invoices that waited in this unit of work (the test clock looks at each once per advance).
WAITED = "paygate.subscriptions.waited"


@dataclass(frozen=True)
class Closing:
    """What a close the gateway makes did: `closed` (else it waits on the payment under way, or the payment paid
    the invoice), and the intent it canceled, whose pending card charges are then canceled at their provider."""

    closed: bool
    canceled_intent: str | None = None


async def intent_of(session: AsyncSession, inv: Invoice) -> PaymentIntent | None:
    """The invoice's intent, locked (its caller took the intents' locks first: this one is held already)."""
    return await settle.lock(session, inv.payment_intent_id) if inv.payment_intent_id else None


def wait_for_payment(session: AsyncSession, inv: Invoice, at: int) -> None:
    """The invoice's payment is under way: nothing is done now; it is looked at again RECHECK_SECONDS later (after
    the wall clock's now, for a step the scheduler runs late)."""
    inv.next_payment_attempt = max(at, now_of(session)) + RECHECK_SECONDS
    session.add(inv)
    session.info.setdefault(WAITED, set()).add(inv.id)
    log.info("invoice waits on its payment under way", extra={"invoice": inv.id})


async def _cancel(session: AsyncSession, env: Env, intent: PaymentIntent, event: inv_states.Event) -> bool:
    """Cancel the intent as the merchant's CancelPaymentIntent would (its events and their subscribers in this
    transaction); False when the intent refuses (funds received or confirmed), nothing changed."""
    # Imported here: the payment intents' service imports this package's lifecycle, which imports billing.
    from paygate.v1 import payment_intents_pb2 as intent_pb

    from server.payment_intents import service as intents
    caller = Caller(merchant_id=intent.merchant_id, livemode=intent.livemode, key_kind="secret")
    try:
        await intents.cancel(session, env, caller,
                             intent_pb.CancelPaymentIntentRequest(id=intent.id, reason=CLOSED_REASONS[event]))
    except IntentUnexpectedState:
        return False
    return True


async def close_unpaid(session: AsyncSession, env: Env, inv: Invoice, event: inv_states.Event, now: int,
                       **facts: Any) -> str | None:
    """The merchant's close (`POST /v1/invoices/{id}/void`): the intent canceled first, then the invoice closed;
    refused (409 invoice_not_open, nothing changed) while its payment is under way or done, or when its intent
    cannot be canceled. The intent's cancel may close the invoice itself (a first invoice lapses with its
    intent): then it is left so. The id of the intent canceled, or None."""
    inv_states.transition(inv.status, event)  # refused before anything moves
    intent = await intent_of(session, inv)
    canceled = None
    if intent is not None and intent.status != IntentStatus.CANCELED:
        if intent.status in PAYMENT_UNDER_WAY:
            raise inv_states.NotOpen(f"{inv.status} with its payment {intent.status}", event)
        if not await _cancel(session, env, intent, event):
            raise inv_states.NotOpen(f"{inv.status} with its payment {intent.status} holding funds", event)
        canceled = intent.id
    if inv_states.allowed(inv.status, event):
        await billing.invoice_move(session, inv, event, now, **facts)
    return canceled


async def close_or_wait(session: AsyncSession, env: Env, inv: Invoice, event: inv_states.Event, now: int,
                        **facts: Any) -> Closing:
    """A close the gateway makes (the table above): closed now with its intent canceled where the intent allows
    it; or, while its payment is under way, left open and looked at again."""
    intent = await intent_of(session, inv)
    status = intent.status if intent is not None else None
    if status == IntentStatus.PROCESSING:
        wait_for_payment(session, inv, now)
        return Closing(False)
    if status in PAID:
        # Its payment paid it, in the payment's own transaction (lifecycle.on_event); nothing is left to collect.
        inv.next_payment_attempt = None
        session.add(inv)
        return Closing(False)
    canceled = None
    if intent is not None and status != IntentStatus.CANCELED and await _cancel(session, env, intent, event):
        canceled = intent.id
    if inv_states.allowed(inv.status, event):
        await billing.invoice_move(session, inv, event, now, **facts)
    return Closing(True, canceled)


async def void_pending(session: AsyncSession, env: Env, sub: Subscription, now: int, *,
                       drafts: bool = True) -> list[str]:
    """Void the subscription's open (and draft) invoices, their payment intents canceled; the ids of the intents
    canceled. One whose payment is under way waits for it (`close_or_wait`)."""
    statuses = [InvoiceStatus.OPEN, InvoiceStatus.DRAFT] if drafts else [InvoiceStatus.OPEN]
    found = await session.exec(select(Invoice).where(Invoice.subscription_id == sub.id,
                                                     col(Invoice.status).in_(statuses))
                               .order_by(col(Invoice.sort_key)))
    canceled: list[str] = []
    for inv in list(found):
        done = await close_or_wait(session, env, inv, inv_states.Event.VOID, now, voided_at=now)
        if done.canceled_intent is not None:
            canceled.append(done.canceled_intent)
    return canceled


async def give_up(session: AsyncSession, env: Env, loaded: Loaded, inv: Invoice, now: int) -> None:
    """Unpaid after the last try: invoice uncollectible (its payment intent canceled: its link takes no more
    money), the subscription's other open and draft invoices voided, subscription canceled (`payment_failed`).
    While the invoice's payment is under way, dunning waits instead: past_due, looked at again."""
    sub = loaded.sub
    done = await close_or_wait(session, env, inv, inv_states.Event.MARK_UNCOLLECTIBLE, now)
    if sub.status == Status.ACTIVE:
        await billing.move(session, loaded, Event.PAYMENT_OVERDUE, now)
    if not done.closed:
        await billing.refresh_due(session, sub)
        session.add(sub)
        return
    await void_pending(session, env, sub, now)
    await billing.move(session, loaded, Event.DUNNING_EXHAUSTED, now, canceled_at=now, ended_at=now,
                       cancel_reason="payment_failed", renew_at=None)


async def close_waiting(session: AsyncSession, env: Env, loaded: Loaded, inv: Invoice, at: int) -> None:
    """The CLOSE step: an invoice of an ended subscription (or of a `void` pause) that waited on its payment is
    voided now that the payment failed, or waits again."""
    await close_or_wait(session, env, inv, inv_states.Event.VOID, at, voided_at=at)
    await billing.refresh_due(session, loaded.sub)
    session.add(loaded.sub)
