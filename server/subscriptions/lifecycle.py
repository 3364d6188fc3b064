"""A subscription's life from its payment: created with the intent, activated by its Success, ended by its
expiry or cancel; later invoices paid through their own intents (DESIGN §8).

`on_event` is an outbox subscriber: it sees `payment_intent.succeeded` / `payment_intent.canceled` in the same
transaction as the intent's move, so an intent's Success and its subscription's activation commit together.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.events.models import Event as EventRow
from server.ids import new_id
from server.invoices import states as inv_states
from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.payment_intents import methods
from server.payment_intents.models import PaymentIntent
from server.products.models import ProductVariant, SellingPlan
from server.subscriptions import billing, locks
from server.subscriptions.aggregate import load
from server.subscriptions.cycles import boundary
from server.subscriptions.models import Subscription
from server.subscriptions.states import Event, Status, allowed
from server.validate import money_text


async def create_for_intent(session: AsyncSession, intent: PaymentIntent, plan: SellingPlan,
                            variant: ProductVariant, quantity: int, decimals: int, payment_url: str,
                            snapshot: dict[str, Any] | None = None) -> tuple[Subscription, Invoice]:
    """The `incomplete` subscription of an intent that buys a selling plan, and its first invoice (cycle 1), in the
    intent's transaction."""
    now = intent.created
    sub = Subscription(
        id=new_id("sub"), merchant_id=intent.merchant_id, livemode=intent.livemode, customer_id=intent.customer_id,
        product_id=variant.product_id, variant_id=variant.id, selling_plan_id=plan.id, quantity=quantity,
        currency=intent.currency, decimals=decimals, status=Status.INCOMPLETE, current_cycle_number=1,
        metadata_=dict(intent.metadata_), first_payment_intent_id=intent.id, payment_url=payment_url,
        external_id=intent.merchant_order_id,  # the merchant's own reference of the purchase links both
        payment_expires_at=intent.expired_at, created_at=now, updated_at=now)
    session.add(sub)
    await session.flush()
    loaded = await load(session, sub)
    days = plan.trial_period_days
    first = Decimal(0) if days > 0 else loaded.current.tier(1).final_price
    described = f"Free trial ({days} days)" if days > 0 else ""
    lines = [billing.line(loaded, first, 0, 0, description=described), *_addon_lines(snapshot or {})]
    # A trial is cycle 0: the first paid cycle (1) is a renewal at trial_end.
    inv = await billing.new_invoice(session, loaded, reason="subscription_create", cycle=0 if days > 0 else 1,
                                    start=0, end=0,
                                    lines=lines, status=InvoiceStatus.OPEN, now=now)
    inv.amount = intent.amount  # what the intent asks, to the digit
    inv.payment_intent_id = intent.id
    inv.payment_url = payment_url
    inv.due_date = intent.expired_at
    session.add(inv)
    return sub, inv


def _addon_lines(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """One-time add-ons bought with the first cycle (a payment link's add-on variants)."""
    product = snapshot.get("product") or {}
    return [{"description": f"{it['variant_title']} x {it['quantity']} (one-time)", "product_id": product.get("id", ""),
             "variant_id": it["variant_id"], "product_name": product.get("name", ""),
             "variant_title": it["variant_title"], "quantity": it["quantity"], "unit_amount": it["price"],
             "amount": money_text(Decimal(it["price"]) * int(it["quantity"])), "currency": it["currency"],
             "period_start": 0, "period_end": 0, "proration": False}
            for it in snapshot.get("items", []) if not it.get("is_primary")]


async def first_payment(session: AsyncSession, sub: Subscription, inv: Invoice, intent: PaymentIntent,
                        now: int) -> None:
    loaded = await load(session, sub)
    days = loaded.current.plan.trial_period_days
    trial: dict[str, Any] = {}
    if days > 0:
        # A free trial: it is the current period (cycle 0); the first paid cycle starts at trial_end, which is
        # the anchor of every later period.
        end = now + days * billing.DAY
        trial = {"trial_start": now, "trial_end": end, "billing_cycle_anchor": end, "periods_since_anchor": -1,
                 "current_cycle_number": 0}
    else:
        end = boundary(now, loaded.current.cycle, 1)
    inv.period_start, inv.period_end = now, end
    for item in inv.lines:
        if item.get("variant_id") == sub.variant_id and not item.get("period_end"):
            item["period_start"], item["period_end"] = now, end
    inv.lines = list(inv.lines)
    await billing.invoice_move(session, inv, inv_states.Event.PAY, now, amount_paid=inv.amount, paid_at=now)
    method = methods.of(intent.payment_method_type)
    card = await method.renews_with(session, intent)
    facts: dict[str, Any] = {
        "billing_cycle_anchor": now, "periods_since_anchor": 0, "current_period_start": now,
        "current_period_end": end, "current_cycle_number": 1, "renew_at": end, "payment_url": None,
        "payment_expires_at": None, "default_payment_method_type": method.name,
        "collection_method": "charge_automatically" if card is not None else "send_invoice"}
    if card is not None:
        # The method that paid is the one renewals charge, off-session (DESIGN §8).
        facts.update(default_payment_method_id=card.id, default_provider_type=card.provider,
                     payment_method_brand=card.brand[:20], payment_method_last4=card.last4)
    await billing.move(session, loaded, Event.FIRST_PAYMENT, now, record_events=False, **{**facts, **trial})
    await billing.record(session, loaded, "subscription.created")


async def first_payment_lapsed(session: AsyncSession, sub: Subscription, inv: Invoice, now: int) -> None:
    """The first intent expired or was canceled: invoice void, subscription canceled (`incomplete_expired`). The
    subscription was never announced, so only the invoice's event is recorded."""
    if inv.status in (InvoiceStatus.OPEN, InvoiceStatus.DRAFT):
        await billing.invoice_move(session, inv, inv_states.Event.VOID, now, voided_at=now)
    await billing.move(session, await load(session, sub), Event.FIRST_PAYMENT_LAPSED, now, record_events=False,
                       canceled_at=now, ended_at=now, cancel_reason="incomplete_expired", payment_url=None,
                       payment_expires_at=None, renew_at=None)


async def invoice_paid(session: AsyncSession, sub: Subscription, inv: Invoice, now: int) -> None:
    """A renewal or plan-change invoice was paid: the period advances from the old end (the invoice's own
    period, never the payment time) and a past_due subscription is active again."""
    await billing.invoice_move(session, inv, inv_states.Event.PAY, now, amount_paid=inv.amount, paid_at=now)
    await advance_if_paid(session, sub, inv, now)


async def advance_if_paid(session: AsyncSession, sub: Subscription, inv: Invoice, now: int) -> None:
    loaded = await load(session, sub)
    facts: dict[str, Any] = {}
    if inv.billing_reason == "subscription_cycle" and inv.cycle_number > sub.current_cycle_number:
        facts = {"current_period_start": inv.period_start, "current_period_end": inv.period_end,
                 "current_cycle_number": inv.cycle_number, "periods_since_anchor": sub.periods_since_anchor + 1,
                 "renew_at": inv.period_end}
    elif inv.billing_reason == "subscription_cycle" and sub.renew_at is None:
        facts = {"renew_at": sub.current_period_end}  # a resume's invoice: its period started already
    if sub.status != Status.PAST_DUE and not facts:
        await billing.refresh_due(session, sub)
        session.add(sub)
        return
    if allowed(sub.status, Event.INVOICE_PAID):
        await billing.move(session, loaded, Event.INVOICE_PAID, now, **facts)


async def on_event(session: AsyncSession, event: EventRow) -> None:
    if event.type not in ("payment_intent.succeeded", "payment_intent.canceled"):
        return
    inv = (await session.exec(select(Invoice).where(Invoice.payment_intent_id == event.object_id))).first()
    if inv is None:
        return
    sub = await locks.subscription(session, inv.subscription_id)  # after the intent: the lock order (locks.py)
    if sub is None:
        return
    intent = await session.get(PaymentIntent, event.object_id)
    now = sub.time_at(now_of(session))
    if event.type == "payment_intent.succeeded":
        if inv.status != InvoiceStatus.OPEN or intent is None:
            return  # paid after being voided or given up on: the intent shows the funds; nothing moves
        if inv.billing_reason == "subscription_create":
            if sub.status == Status.INCOMPLETE:
                await first_payment(session, sub, inv, intent, now)
            else:
                # Under way when the subscription was canceled, and paid since: the money is recorded on its
                # invoice (refundable from the intent); the subscription stays as it is.
                await billing.invoice_move(session, inv, inv_states.Event.PAY, now, amount_paid=inv.amount,
                                           paid_at=now)
        else:
            await invoice_paid(session, sub, inv, now)
    elif inv.billing_reason == "subscription_create" and sub.status == Status.INCOMPLETE:
        await first_payment_lapsed(session, sub, inv, now)


async def on_payment_stopped(session: AsyncSession, intent: PaymentIntent) -> None:
    """The payment of an invoice that an ended subscription (or a `void` pause) left open for it stopped unpaid: the
    close that waited on it (server/subscriptions/closing.py) falls due now instead of at its next look, so that the
    invoice takes no new payment for longer than the scheduler's next pass. Dunning's looks keep their times: they
    are its schedule as well as its waits."""
    inv = (await session.exec(select(Invoice).where(Invoice.payment_intent_id == intent.id))).first()
    if inv is None or inv.status != InvoiceStatus.OPEN or inv.next_payment_attempt is None:
        return
    sub = await locks.subscription(session, inv.subscription_id)  # after the intent: the lock order (locks.py)
    if sub is None or not billing.closes_waiting(sub):
        return
    now = sub.time_at(now_of(session))
    if inv.next_payment_attempt > now:
        inv.next_payment_attempt = now
        session.add(inv)
        await billing.refresh_due(session, sub)
        session.add(sub)
