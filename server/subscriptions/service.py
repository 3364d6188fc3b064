"""The subscription API: list, retrieve, cancel, revoke-cancel, pause, resume, plan change and its preview, and
the test clock. Scoped to the caller's merchant and mode; every "now" is the subscription's own (its test clock
once advanced, DESIGN §8). Each operation runs in the caller's unit of work and returns callouts (e-mails, card
charges) for after the commit."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from paygate.v1 import subscriptions_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, validate
from server.clock import now_of
from server.context import Caller
from server.errors import Conflict, Forbidden, MissingParameter, invalid
from server.invoices.models import Invoice
from server.invoices.states import Status as InvoiceStatus
from server.paging import Slice, newest_first
from server.payment_intents.env import Env
from server.products.convert import variant_title
from server.products.models import ProductVariant
from server.scoping import get_owned, in_scope
from server.selling_plans import membership
from server.subscriptions import billing, closing, convert, locks, renewal
from server.subscriptions.aggregate import Loaded, Plan, load
from server.subscriptions.billing import Callout
from server.subscriptions.collect import Collector, collect
from server.subscriptions.cycles import boundary
from server.subscriptions.models import Subscription
from server.subscriptions.proration import (
    Anchor,
    Behavior,
    Decision,
    Paid,
    PlanPrice,
    Proration,
    Timing,
    decide,
    prorate,
    shape,
)
from server.subscriptions.states import Event, NotPaused, Status, UnexpectedState, transition
from server.validate import money_text

DEFAULT_LIMIT, MAX_LIMIT = 20, 100
MAX_QUANTITY = 10_000
TWO_YEARS = 2 * 366 * 86_400
BEHAVIORS = {pb.PAUSE_COLLECTION_BEHAVIOR_VOID: "void", pb.PAUSE_COLLECTION_BEHAVIOR_KEEP_AS_DRAFT: "keep_as_draft",
             pb.PAUSE_COLLECTION_BEHAVIOR_MARK_UNCOLLECTIBLE: "mark_uncollectible",
             pb.PAUSE_COLLECTION_BEHAVIOR_FREE: "free"}
PRORATIONS = {pb.PRORATION_BEHAVIOR_ALWAYS_INVOICE: Behavior.ALWAYS_INVOICE,
              pb.PRORATION_BEHAVIOR_CREATE_PRORATIONS: Behavior.CREATE_PRORATIONS,
              pb.PRORATION_BEHAVIOR_NONE: Behavior.NONE}
ANCHORS = {pb.BILLING_CYCLE_ANCHOR_NOW: Anchor.NOW, pb.BILLING_CYCLE_ANCHOR_UNCHANGED: Anchor.UNCHANGED}


def offset_limit(request: Any) -> tuple[int, int]:
    offset = request.offset if request.HasField("offset") else 0
    limit = request.limit if request.HasField("limit") else DEFAULT_LIMIT
    if offset < 0:
        raise invalid("offset", "must be 0 or more")
    if not 1 <= limit <= MAX_LIMIT:
        raise invalid("limit", f"must be from 1 to {MAX_LIMIT}")
    return offset, limit


async def get(session: AsyncSession, caller: Caller, sub_id: str, *, for_update: bool = False) -> Loaded:
    """`for_update`: locked for a change, in the lock order (server/subscriptions/locks.py): the intents of its
    unclosed invoices first, which a cancel or a pause may cancel, then the subscription, read once both are held."""
    row = await get_owned(session, Subscription, sub_id, caller, "subscription")
    if for_update:
        row = await locks.payments_then_subscription(session, row.id) or row
    return await load(session, row)


async def list_page(session: AsyncSession, caller: Caller, request: pb.ListSubscriptionsRequest
                    ) -> tuple[list[Loaded], int, int, int]:
    offset, limit = offset_limit(request)
    where = in_scope(Subscription, caller)
    if request.customer_id:
        where.append(col(Subscription.customer_id) == request.customer_id.strip())
    if request.status:
        where.append(col(Subscription.status) == convert.status_wire(request.status))
    if request.external_id:
        where.append(col(Subscription.external_id) == request.external_id.strip())
    rows, total = await newest_first(session, Subscription, where, Slice(offset, limit))
    return [await load(session, r) for r in rows], total, offset, limit


async def cancel(session: AsyncSession, env: Env, caller: Caller, request: pb.CancelSubscriptionRequest
                 ) -> tuple[Loaded, list[str]]:
    """Cancel at the period end, or now; the ids of the payment intents canceled with the invoices voided."""
    loaded = await get(session, caller, request.id, for_update=True)
    sub, now = loaded.sub, loaded.sub.time_at(now_of(session))
    at_period_end = request.cancel_at_period_end if request.HasField("cancel_at_period_end") else True
    reason = validate.text("cancel_reason", request.cancel_reason.strip()) if request.HasField("cancel_reason") \
        else ""
    if at_period_end:
        transition(sub.status, Event.SCHEDULE_CANCEL)
        await billing.move(session, loaded, Event.SCHEDULE_CANCEL, now, cancel_at_period_end=True, canceled_at=now,
                           cancel_reason=reason or None)
        return loaded, []
    transition(sub.status, Event.CANCEL_NOW)
    # Canceled before its invoices are voided: an incomplete subscription's first intent, once canceled, would
    # otherwise end the subscription itself (incomplete_expired) under this cancel.
    await billing.move(session, loaded, Event.CANCEL_NOW, now, canceled_at=now, ended_at=now,
                       cancel_reason=reason or None, renew_at=None, payment_url=None, payment_expires_at=None)
    # An invoice whose payment is under way stays open until that payment decides (closing.py): due then.
    canceled = await closing.void_pending(session, env, sub, now)
    await billing.refresh_due(session, sub)
    session.add(sub)
    return loaded, canceled


async def revoke_cancel(session: AsyncSession, caller: Caller, request: pb.RevokeSubscriptionCancelRequest) -> Loaded:
    loaded = await get(session, caller, request.id, for_update=True)
    sub = loaded.sub
    transition(sub.status, Event.REVOKE_CANCEL)
    if not sub.cancel_at_period_end:
        raise UnexpectedState(f"{sub.status} without a scheduled cancel", Event.REVOKE_CANCEL)
    await billing.move(session, loaded, Event.REVOKE_CANCEL, sub.time_at(now_of(session)), cancel_at_period_end=False,
                       canceled_at=None, cancel_reason=None)
    return loaded


async def pause(session: AsyncSession, env: Env, caller: Caller, request: pb.PauseSubscriptionRequest
                ) -> tuple[Loaded, list[str]]:
    """Pause; the ids of the payment intents canceled with the invoices a `void` pause voids."""
    loaded = await get(session, caller, request.id, for_update=True)
    sub, now = loaded.sub, loaded.sub.time_at(now_of(session))
    behavior = BEHAVIORS.get(request.behavior)
    if behavior is None:
        raise MissingParameter("behavior", "behavior: one of void, keep_as_draft, mark_uncollectible, free")
    transition(sub.status, Event.PAUSE)
    resumes_at = request.resumes_at if request.HasField("resumes_at") else None
    if resumes_at is not None and resumes_at <= now:
        raise invalid("resumes_at", f"must be in the future (now is {now})")
    canceled = await closing.void_pending(session, env, sub, now, drafts=False) if behavior == "void" else []
    await billing.move(session, loaded, Event.PAUSE, now, paused_at=now, pause_collection_behavior=behavior,
                       resumes_at=resumes_at)
    return loaded, canceled


async def resume(session: AsyncSession, collector: Collector, caller: Caller,
                 request: pb.ResumeSubscriptionRequest) -> tuple[Loaded, list[Callout]]:
    loaded = await get(session, caller, request.id, for_update=True)
    sub = loaded.sub
    if sub.status != Status.PAUSED:
        transition(sub.status, Event.RESUME)  # the spec's refusal (already canceled / not paused)
        raise NotPaused(sub.status, Event.RESUME)
    callouts = await renewal.resume(session, collector, loaded, sub.time_at(now_of(session)))
    return await load(session, sub), callouts


# ---------------------------------------------------------------- plan change


@dataclass
class Change:
    loaded: Loaded
    target: Plan
    decision: Decision
    proration: Proration
    proration_date: int
    current_price: Decimal
    target_price: Decimal
    effective_date: int
    next_charge_date: int
    next_charge_amount: Decimal
    metadata: dict[str, Any] | None


async def _target(session: AsyncSession, loaded: Loaded, request: pb.ChangeSubscriptionPlanRequest) -> Plan:
    pv = request.primary_variant
    if request.addons:
        # A plan change prices the primary variant only; add-ons given here would be silently dropped.
        raise invalid("addons[0].variant_id", "a plan change keeps the subscription's add-ons: send none")
    if not request.HasField("primary_variant"):
        raise MissingParameter("primary_variant")
    if not pv.selling_plan_id.strip():
        raise MissingParameter("primary_variant.selling_plan_id")
    plan = await membership.plan_of_product(session, pv.selling_plan_id.strip(), loaded.sub.product_id)
    if plan is None:
        raise invalid("primary_variant.selling_plan_id", "not a selling plan of the subscription's product")
    if plan.id != loaded.sub.selling_plan_id and not await membership.takes_subscribers(session, plan):
        raise invalid("primary_variant.selling_plan_id", f"selling plan {plan.id} is disabled: it takes no new "
                                                         "subscribers")
    variant_id = pv.variant_id.strip() if pv.HasField("variant_id") and pv.variant_id.strip() else loaded.sub.variant_id
    variant = await session.get(ProductVariant, variant_id)
    if variant is None or variant.product_id != loaded.sub.product_id:
        raise invalid("primary_variant.variant_id", "not a variant of the subscription's product")
    if not variant.active and variant.id != loaded.sub.variant_id:
        raise invalid("primary_variant.variant_id", "this variant is no longer sold")
    quantity = pv.quantity if pv.HasField("quantity") else 1
    if not 1 <= quantity <= MAX_QUANTITY:
        raise invalid("primary_variant.quantity", f"must be from 1 to {MAX_QUANTITY}")
    return Plan(plan, variant, quantity, loaded.sub.decimals)


# The invoices that open a period: the first, a renewal or a resume's, and a plan change that resets the cycle.
PERIOD_OPENERS = ("subscription_create", "subscription_cycle", "subscription_update")


async def paid_for_period(session: AsyncSession, sub: Subscription) -> Paid:
    """What the subscriber paid for the current period, read from the invoice that opened it: nothing during a
    free trial, or when that invoice was voided, given up on, made free by a pause or is not paid yet."""
    if sub.current_cycle_number == 0 and sub.trial_end is not None:
        return Paid.FREE_TRIAL
    opener = (await session.exec(select(Invoice).where(
        Invoice.subscription_id == sub.id, Invoice.cycle_number == sub.current_cycle_number,
        Invoice.period_start == sub.current_period_start, col(Invoice.billing_reason).in_(PERIOD_OPENERS))
        .order_by(col(Invoice.sort_key)).limit(1))).first()
    if opener is None or opener.status != InvoiceStatus.PAID or charged_for(opener) <= 0:
        return Paid.NOTHING
    return Paid.IN_FULL


# A renewal that is not settled: the period it bills has not begun to count as paid (the period moves on only when
# it is paid), or, once a resume opened it, its price is still owed.
UNSETTLED = (InvoiceStatus.OPEN, InvoiceStatus.DRAFT)


class InvoiceOpen(Conflict):
    """An immediate plan change while a renewal or an earlier change's invoice still bills time to come (409)."""

    reason = "subscription_invoice_open"


# The invoices that bill time to come: a renewal, and an immediate plan change's.
BILLS_AHEAD = ("subscription_cycle", "subscription_update")


async def refuse_immediate_change_while_invoice_unsettled(session: AsyncSession, sub: Subscription, now: int) -> None:
    """A change that applies now prices the current period as if what bills it were settled: with a renewal still
    open it would invoice the same period a second time (the renewal's price and the new plan's), and with an earlier
    change's invoice still open it would credit time on a plan nobody paid for. So the caller settles or voids that
    invoice first; a change at the period end is priced by that invoice and stays allowed."""
    inv = (await session.exec(select(Invoice).where(
        Invoice.subscription_id == sub.id, col(Invoice.billing_reason).in_(BILLS_AHEAD),
        col(Invoice.status).in_(UNSETTLED), col(Invoice.period_end) > now)
        .order_by(col(Invoice.sort_key)).limit(1))).first()
    if inv is not None:
        raise InvoiceOpen(f"invoice {inv.id} ({inv.billing_reason}, cycle {inv.cycle_number}, {inv.period_start} to "
                          f"{inv.period_end}) is still {inv.status}: pay or void it before a plan change that applies "
                          "now, or schedule the change for the period end")


def charged_for(inv: Invoice) -> Decimal:
    """What an invoice charged before credits (a plan change's credit line makes its total lower)."""
    return sum((amount for line in inv.lines if (amount := Decimal(line["amount"])) > 0), Decimal(0))


async def price_change(session: AsyncSession, loaded: Loaded, request: pb.ChangeSubscriptionPlanRequest) -> Change:
    """The matrix cell and the amounts of a plan change; changes nothing."""
    sub = loaded.sub
    target = await _target(session, loaded, request)  # the request's ids first: a foreign id is 400 in any state
    transition(sub.status, Event.CHANGE_PLAN)
    now = sub.time_at(now_of(session))
    start, end = sub.current_period_start, sub.current_period_end
    if request.HasField("proration_date"):
        when = request.proration_date
        if not start <= when <= end:
            raise invalid("proration_date", f"must lie in the current period, from {start} to {end}")
    else:
        when = min(max(now, start), end)
    # The plans compare at a paid cycle's price (a free trial is cycle 0); the next cycle is the current one + 1.
    n, following = max(1, sub.current_cycle_number), sub.current_cycle_number + 1
    current = PlanPrice(sub.selling_plan_id, sub.variant_id, sub.quantity, loaded.current.tier(n).final_price,
                        loaded.current.cycle)
    goal = PlanPrice(target.plan.id, target.variant.id, target.quantity, target.tier(n).final_price, target.cycle)
    decision = decide(shape(current, goal), PRORATIONS.get(request.proration_behavior),
                      ANCHORS.get(request.billing_cycle_anchor))
    if decision.timing in (Timing.RESET, Timing.NOW_KEPT):
        await refuse_immediate_change_while_invoice_unsettled(session, sub, now)
    if decision.timing is Timing.RESET:
        goal = PlanPrice(goal.selling_plan_id, goal.variant_id, goal.quantity, target.tier(following).final_price,
                         goal.cycle)
    paid = await paid_for_period(session, sub) if decision.charge_now else Paid.IN_FULL
    proration = prorate(decision, current, goal, start, end, when, sub.decimals, paid=paid)
    if decision.timing is Timing.RESET:
        effective, next_date = when, boundary(when, target.cycle, 1)
        next_amount = target.tier(following + 1).final_price
    elif decision.timing is Timing.NOW_KEPT:
        effective, next_date, next_amount = when, end, target.tier(following).final_price
    elif decision.timing is Timing.PERIOD_END:
        effective, next_date, next_amount = end, end, target.tier(following).final_price
    else:
        effective, next_date, next_amount = now, end, loaded.current.tier(following).final_price
    credit = sub.credit_balance + proration.carry
    next_amount = max(next_amount - credit, Decimal(0))
    metadata = json_fields.metadata_of(request.metadata) if request.HasField("metadata") else None
    return Change(loaded, target, decision, proration, when, current.price, goal.price, effective, next_date,
                  next_amount, metadata)


def answer(change: Change, subscription: pb.Subscription, *, applied: bool, invoice_id: str = ""
           ) -> pb.SubscriptionChange:
    out = pb.SubscriptionChange.FromString(subscription.SerializeToString())
    p, d = change.proration, change.decision
    out.applied = applied
    out.is_upgrade = d.change_type.value == "upgrade"
    out.change_type = convert.enum_value(pb.PlanChangeType, "PLAN_CHANGE_TYPE", d.change_type.value)
    out.proration_behavior = convert.enum_value(pb.ProrationBehavior, "PRORATION_BEHAVIOR",
                                                d.behavior.value if d.behavior else "")
    out.proration_billing_cycle_anchor = convert.enum_value(pb.BillingCycleAnchor, "BILLING_CYCLE_ANCHOR",
                                                            d.anchor.value if d.anchor else "")
    out.effective_date = change.effective_date
    out.proration_credit = money_text(p.credited)
    out.charge_today = money_text(p.net)
    out.next_charge_date = change.next_charge_date
    out.invoice_id = invoice_id
    out.proration_details.CopyFrom(pb.ProrationDetails(
        credited_amount=money_text(p.credited), charged_amount=money_text(p.charged), net_amount=money_text(p.net),
        days_remaining=p.days_remaining, total_days=p.total_days, current_price=money_text(change.current_price),
        target_price=money_text(change.target_price)))
    return out


async def preview(session: AsyncSession, caller: Caller, request: pb.ChangeSubscriptionPlanRequest
                  ) -> pb.SubscriptionChange:
    loaded = await get(session, caller, request.id)
    change = await price_change(session, loaded, request)
    return answer(change, convert.to_proto(loaded), applied=False)


def _pending(change: Change, now: int) -> dict[str, Any]:
    t, d = change.target, change.decision
    return {"target_selling_plan_id": t.plan.id, "target_selling_plan_name": t.plan.name,
            "target_variant_id": t.variant.id, "target_quantity": t.quantity,
            "target_variant_title": variant_title(t.variant, change.loaded.option_names),
            "target_variant_price": money_text(t.variant.price),
            "target_variant_option_values": dict(t.variant.option_values),
            "next_charge_amount": money_text(change.next_charge_amount), "change_type": d.change_type.value,
            "effective_date": change.effective_date, "proration_behavior": d.behavior.value if d.behavior else "",
            "billing_cycle_anchor": d.anchor.value if d.anchor else "", "proration_date": change.proration_date,
            "metadata": change.metadata, "scheduled_at": now}


async def change_plan(session: AsyncSession, collector: Collector, caller: Caller,
                      request: pb.ChangeSubscriptionPlanRequest) -> tuple[pb.SubscriptionChange, list[Callout]]:
    loaded = await get(session, caller, request.id, for_update=True)
    change = await price_change(session, loaded, request)
    sub, now, d, p = loaded.sub, loaded.sub.time_at(now_of(session)), change.decision, change.proration
    callouts: list[Callout] = []
    invoice_id = ""
    if d.timing is Timing.NOTHING:
        return answer(change, convert.to_proto(loaded), applied=False), []
    facts: dict[str, Any] = {}
    if d.timing is Timing.PERIOD_END:
        facts["pending_update"] = _pending(change, now)
    else:
        facts.update(selling_plan_id=change.target.plan.id, variant_id=change.target.variant.id,
                     quantity=change.target.quantity, pending_update=None)
        if change.metadata is not None:
            facts["metadata_"] = change.metadata
        if d.timing is Timing.RESET:
            end = boundary(change.proration_date, change.target.cycle, 1)
            facts.update(billing_cycle_anchor=change.proration_date, periods_since_anchor=0,
                         current_period_start=change.proration_date, current_period_end=end,
                         current_cycle_number=sub.current_cycle_number + 1, renew_at=end)
    if p.carry:
        facts["credit_balance"] = sub.credit_balance + p.carry
    await billing.move(session, loaded, Event.CHANGE_PLAN, now, **facts)
    if d.charge_now:
        start = change.proration_date
        end = sub.current_period_end
        lines = [billing.line(loaded, p.charged, start, end, proration=True,
                              description=f"{change.target.plan.name}: plan change")]
        if p.credited:
            lines.append(billing.line(loaded, -p.credited, start, end, proration=True,
                                      description="Unused time on the previous plan"))
        status = InvoiceStatus.OPEN if p.net > 0 else InvoiceStatus.PAID
        inv = await billing.new_invoice(session, loaded, reason="subscription_update",
                                        cycle=sub.current_cycle_number, start=start, end=end, lines=lines,
                                        status=status, now=now)
        invoice_id = inv.id
        if status == InvoiceStatus.OPEN:
            callouts = await collect(session, collector, sub, inv, now)
            await billing.refresh_due(session, sub)
            session.add(sub)
    loaded = await load(session, sub)
    applied = d.timing in (Timing.RESET, Timing.NOW_KEPT)
    return answer(change, convert.to_proto(loaded), applied=applied, invoice_id=invoice_id), callouts


# ---------------------------------------------------------------- test clock


async def check_clock(session: AsyncSession, caller: Caller, request: pb.AdvanceSubscriptionTestClockRequest
                      ) -> Subscription:
    loaded = await get(session, caller, request.id, for_update=True)
    sub = loaded.sub
    if sub.livemode:
        raise Forbidden("the test clock exists in test mode only")
    if not request.to:
        raise MissingParameter("to")
    now = sub.time_at(now_of(session))
    if request.to <= now:
        raise invalid("to", f"must be later than the subscription's clock ({now})")
    if request.to > now + TWO_YEARS:
        raise invalid("to", "at most 2 years ahead of the subscription's clock")
    if sub.test_clock is None:
        sub.test_clock = now  # from now on the subscription keeps its own time
        session.add(sub)
    return sub
