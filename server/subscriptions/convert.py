"""Rows -> the Subscription and Invoice shapes (proto). Prices are derived here from the plan at read time with
server/subscriptions/pricing.py, the same function the invoices use, so what is shown is what will be charged."""

from __future__ import annotations

from decimal import Decimal

from paygate.v1 import invoices_pb2 as ipb
from paygate.v1 import products_pb2
from paygate.v1 import subscriptions_pb2 as pb

from server import json_fields
from server.customers.models import Customer
from server.invoices.models import Invoice
from server.products.convert import variant_title
from server.subscriptions.aggregate import Loaded, Plan
from server.subscriptions.pricing import display, ordered, span_of
from server.subscriptions.pricing import tier as price_tier
from server.subscriptions.states import Status
from server.validate import money_text

CYCLES = {"day": products_pb2.BILLING_CYCLE_DAY, "week": products_pb2.BILLING_CYCLE_WEEK,
          "month": products_pb2.BILLING_CYCLE_MONTH, "year": products_pb2.BILLING_CYCLE_YEAR}
POLICIES = {"": products_pb2.PRICING_POLICY_TYPE_UNSPECIFIED, "FIXED": products_pb2.PRICING_POLICY_TYPE_FIXED,
            "RECURRING": products_pb2.PRICING_POLICY_TYPE_RECURRING}


def _enum(enum: object, prefix: str, wire: str) -> int:
    return int(enum.Value(f"{prefix}_{wire.upper()}")) if wire else 0  # type: ignore[attr-defined]


def enum_value(enum: object, prefix: str, wire: str) -> int:
    return _enum(enum, prefix, wire)


def status_wire(value: int) -> str:
    return str(pb.SubscriptionStatus.Name(value)).removeprefix("SUBSCRIPTION_STATUS_").lower()


def status_enum(wire: str) -> int:
    return _enum(pb.SubscriptionStatus, "SUBSCRIPTION_STATUS", wire)


def invoice_status_enum(wire: str) -> int:
    return _enum(ipb.InvoiceStatus, "INVOICE_STATUS", wire)


def tier_view(plan: Plan, n: int, currency: str) -> pb.PricingTierView:
    t = plan.tier(n)
    return pb.PricingTierView(
        policy_type=POLICIES[t.policy_type], cycle_number=t.cycle_number, cycle_description=t.span.description,
        billing_cycle=CYCLES[plan.plan.billing_cycle], billing_cycle_interval=plan.plan.billing_cycle_interval,
        currency=currency, base_price=money_text(t.base_price), selling_plan_discount=money_text(t.discount),
        discount_percentage=money_text(t.discount_percentage), final_price=money_text(t.final_price))


def plan_pricing(plan: Plan, currency: str) -> pb.SellingPlanPricing:
    policies = ordered(list(plan.policies))
    tiers = []
    for p in policies:
        span = span_of(policies, p)
        t = price_tier(plan.variant.price, plan.quantity, [p], 1, plan.decimals)  # this policy's own discount
        tiers.append(pb.PricingTier(
            policy_type=POLICIES[p.policy_type], after_cycle=p.after_cycle, cycle_description=span.description,
            total_cycles=span.total_cycles, base_price=money_text(t.base_price),
            selling_plan_discount=money_text(t.discount), subtotal_before_policy=money_text(t.base_price),
            subtotal_after_policy=money_text(t.final_price)))
    return pb.SellingPlanPricing(
        selling_plan_id=plan.plan.id, selling_plan_name=plan.plan.name, billing_cycle=CYCLES[plan.plan.billing_cycle],
        currency=currency, trial_period_days=plan.plan.trial_period_days, pricing_tiers=tiers,
        billing_cycle_interval=plan.plan.billing_cycle_interval)


def next_charge(loaded: Loaded) -> Decimal:
    """What the next invoice will charge: the next cycle's price (on the pending plan if one applies at the period
    end), less the credit carried from a plan change; 0 when no paid invoice will follow."""
    sub = loaded.sub
    if sub.status in (Status.CANCELED, Status.PAUSED) or sub.cancel_at_period_end:
        return Decimal(0)
    if sub.status == Status.INCOMPLETE:
        return loaded.current.tier(1).final_price
    plan = loaded.target or loaded.current
    return max(plan.tier(sub.current_cycle_number + 1).final_price - sub.credit_balance, Decimal(0))


def to_proto(loaded: Loaded) -> pb.Subscription:
    s, current = loaded.sub, loaded.current
    customer: Customer | None = loaded.customer
    n = max(1, s.current_cycle_number)
    amount = next_charge(loaded)
    out = pb.Subscription(
        id=s.id, merchant_id=s.merchant_id, merchant_name=loaded.merchant_name,
        customer_id=s.customer_id or "", customer_name=customer.name if customer else "",
        customer_email=customer.email if customer else "", product_id=s.product_id,
        product_name=loaded.product.name, product_description=loaded.product.description,
        product_image_url=loaded.product.image_url, variant_id=s.variant_id,
        variant_title=variant_title(current.variant, loaded.option_names),
        variant_option_values=current.variant.option_values, variant_price=money_text(current.variant.price),
        selling_plan_id=s.selling_plan_id, selling_plan_name=current.plan.name,
        selling_plan_description=current.plan.description, selling_plan_pricing=plan_pricing(current, s.currency),
        status=status_enum(s.status), collection_method=_enum(pb.CollectionMethod, "COLLECTION_METHOD",
                                                              s.collection_method),
        default_payment_method_id=s.default_payment_method_id,
        default_payment_method_type=s.default_payment_method_type, default_provider_type=s.default_provider_type,
        payment_method_brand=s.payment_method_brand, payment_method_last4=s.payment_method_last4,
        external_id=s.external_id, created_at=s.created_at, updated_at=s.updated_at,
        billing_cycle_anchor=s.billing_cycle_anchor, current_period_start=s.current_period_start,
        current_period_end=s.current_period_end, cancel_at_period_end=s.cancel_at_period_end,
        latest_invoice_id=s.latest_invoice_id, current_cycle_number=s.current_cycle_number,
        current_pricing_tier=tier_view(current, n, s.currency),
        upcoming_pricing_tier=tier_view(loaded.target or current,
                                        s.current_cycle_number + 1 if s.status != Status.INCOMPLETE else 1,
                                        s.currency),
        next_charge_amount=money_text(amount), next_charge_amount_display=display(amount, s.currency, s.decimals),
        payment_required=s.status == Status.INCOMPLETE,
        hours_since_creation=max(0, s.time_at(loaded.read_at) - s.created_at) // 3600, quantity=s.quantity,
        livemode=s.livemode,
    )
    json_fields.fill(out.metadata, s.metadata_)
    for name in ("trial_start", "trial_end", "canceled_at", "cancel_reason", "paused_at", "resumes_at",
                 "payment_url", "payment_expires_at"):
        value = getattr(s, name)
        if value is not None:
            setattr(out, name, value)
    if s.pause_collection_behavior:
        out.pause_collection_behavior = _enum(pb.PauseCollectionBehavior, "PAUSE_COLLECTION_BEHAVIOR",
                                              s.pause_collection_behavior)
    if s.pending_update:
        out.pending_update.CopyFrom(pending_proto(s.pending_update))
    if s.test_clock is not None:
        out.test_clock.frozen_time = s.test_clock
    return out


def pending_proto(p: dict[str, object]) -> pb.PendingUpdate:
    out = pb.PendingUpdate(
        target_selling_plan_id=str(p["target_selling_plan_id"]),
        target_selling_plan_name=str(p["target_selling_plan_name"]),
        target_variant_id=str(p["target_variant_id"]), target_quantity=int(str(p["target_quantity"])),
        target_variant_title=str(p["target_variant_title"]), target_variant_price=str(p["target_variant_price"]),
        target_variant_option_values=dict(p["target_variant_option_values"]),  # type: ignore[call-overload]
        next_charge_amount=str(p["next_charge_amount"]),
        change_type=_enum(pb.PlanChangeType, "PLAN_CHANGE_TYPE", str(p["change_type"])),
        effective_date=int(str(p["effective_date"])),
        proration_behavior=_enum(pb.ProrationBehavior, "PRORATION_BEHAVIOR", str(p["proration_behavior"])),
        billing_cycle_anchor=_enum(pb.BillingCycleAnchor, "BILLING_CYCLE_ANCHOR", str(p["billing_cycle_anchor"])),
        proration_date=int(str(p["proration_date"])), scheduled_at=int(str(p["scheduled_at"])))
    json_fields.fill(out.metadata, p.get("metadata"))  # type: ignore[arg-type]
    return out


def invoice_proto(inv: Invoice, merchant_name: str, customer: Customer | None) -> ipb.Invoice:
    out = ipb.Invoice(
        id=inv.id, object="invoice", merchant_id=inv.merchant_id, merchant_name=merchant_name,
        subscription_id=inv.subscription_id, payment_intent_id=inv.payment_intent_id or "",
        customer_id=inv.customer_id or "", customer_email=customer.email if customer else "",
        customer_name=customer.name if customer else "", amount=money_text(inv.amount),
        amount_paid=money_text(inv.amount_paid), currency=inv.currency, status=invoice_status_enum(inv.status),
        billing_reason=_enum(ipb.BillingReason, "BILLING_REASON", inv.billing_reason),
        cycle_number=inv.cycle_number, period_start=inv.period_start, period_end=inv.period_end,
        attempt_count=inv.attempt_count, external_id=inv.external_id, created_at=inv.created_at,
        updated_at=inv.updated_at, version=inv.version, livemode=inv.livemode,
        lines=[ipb.InvoiceLine(**line) for line in inv.lines])
    json_fields.fill(out.metadata, inv.metadata_)
    for name in ("next_payment_attempt", "due_date", "paid_at", "voided_at", "payment_url"):
        value = getattr(inv, name)
        if value is not None:
            setattr(out, name, value)
    return out
