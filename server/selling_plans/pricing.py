"""`POST /v1/selling_plans/calculate_price`: a variant's price per cycle under a plan, each pricing policy applied
the way subscriptions bill it (server/subscriptions/pricing.py)."""

from __future__ import annotations

from paygate.v1 import selling_plans_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Catalogue
from server.context import Caller
from server.errors import MissingParameter, invalid
from server.payment_intents.pricing import decimals_of
from server.products.models import Product, ProductVariant
from server.scoping import find_owned
from server.selling_plans import membership
from server.selling_plans.service import get_plan
from server.subscriptions.pricing import Policy, ordered, span_of, tier
from server.validate import money_text

MAX_QUANTITY = 1_000_000


async def calculate(session: AsyncSession, caller: Caller, catalogue: Catalogue,
                    r: pb.CalculateSellingPlanPriceRequest) -> pb.CalculateSellingPlanPriceResponse:
    plan_id, alias = r.selling_plan_id.strip(), r.plan_id.strip()
    if plan_id and alias and alias != plan_id:
        raise invalid("plan_id", "names another selling plan than selling_plan_id (send one of the two)")
    plan_id = plan_id or alias
    if not plan_id:
        raise MissingParameter("selling_plan_id")
    quantity = r.quantity if r.HasField("quantity") else 1
    if not 1 <= quantity <= MAX_QUANTITY:
        raise invalid("quantity", f"must be from 1 to {MAX_QUANTITY}")
    plan = await get_plan(session, caller, plan_id)
    variant = await session.get(ProductVariant, r.variant_id.strip()) if r.variant_id.strip() else None
    product = await find_owned(session, Product, variant.product_id, caller) if variant else None
    if variant is None or product is None or \
            await membership.plan_of_product(session, plan.id, product.id) is None:
        raise invalid("variant_id", f"{r.variant_id!r} is not a variant of a product this selling plan applies to")
    decimals = decimals_of(catalogue, variant.currency)
    policies = ordered([Policy.of(p) for p in plan.pricing_policies])
    tiers = []
    each: list[Policy | None] = list(policies) or [None]
    for p in each:
        if p is None:
            t = tier(variant.price, quantity, [], 1, decimals)
            tiers.append(pb.PriceTier(cycle_description=t.span.description, base_price=money_text(variant.price),
                                      selling_plan_discount=money_text(t.discount),
                                      subtotal_before_policy=money_text(t.base_price),
                                      subtotal_after_policy=money_text(t.final_price)))
            continue
        span = span_of(policies, p)
        t = tier(variant.price, quantity, [p], p.after_cycle + 1, decimals)  # this policy's own discount
        tiers.append(pb.PriceTier(
            policy_type=p.policy_type, after_cycle=p.after_cycle, cycle_description=span.description,
            total_cycles=span.total_cycles, base_price=money_text(variant.price),
            selling_plan_discount=money_text(t.discount), subtotal_before_policy=money_text(t.base_price),
            subtotal_after_policy=money_text(t.final_price)))
    first = tier(variant.price, quantity, policies, 1, decimals)
    cycle = plan.billing_cycle if plan.billing_cycle_interval == 1 else \
        f"{plan.billing_cycle_interval} {plan.billing_cycle}s"
    return pb.CalculateSellingPlanPriceResponse(
        selling_plan_id=plan.id, variant_id=variant.id, quantity=quantity, base_price=money_text(variant.price),
        total_cycles=first.span.total_cycles, subtotal_before_policy=money_text(first.base_price),
        selling_plan_discount=money_text(first.discount), subtotal_after_policy=money_text(first.final_price),
        currency=variant.currency, billing_cycle=cycle, trial_period_days=plan.trial_period_days,
        pricing_tiers=tiers)
