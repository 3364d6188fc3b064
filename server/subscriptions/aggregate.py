"""A subscription with what its API shape shows: the merchant's name, the customer, the product, the variant and
the selling plan (and the target plan of a pending update)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from server.customers.models import Customer
from server.merchants.models import Merchant
from server.products.models import Product, ProductVariant, SellingPlan
from server.subscriptions import rows
from server.subscriptions.cycles import Cycle
from server.subscriptions.models import Subscription
from server.subscriptions.pricing import Policy, Tier, tier


@dataclass
class Plan:
    """A (selling plan, variant, quantity) with the means to price its cycles."""

    plan: SellingPlan
    variant: ProductVariant
    quantity: int
    decimals: int

    @property
    def cycle(self) -> Cycle:
        return Cycle.of(self.plan.billing_cycle, self.plan.billing_cycle_interval)

    @property
    def policies(self) -> list[Policy]:
        return [Policy.of(p) for p in self.plan.pricing_policies]

    def tier(self, n: int) -> Tier:
        return tier(self.variant.price, self.quantity, self.policies, max(1, n), self.decimals)


@dataclass
class Loaded:
    sub: Subscription
    merchant_name: str
    customer: Customer | None
    product: Product
    current: Plan
    target: Plan | None = None  # of the pending update

    @property
    def option_names(self) -> list[str]:
        return [o["name"] for o in self.product.options]


async def plan_of(session: AsyncSession, plan_id: str, variant_id: str, quantity: int, decimals: int) -> Plan | None:
    plan = await rows.get(session, SellingPlan, plan_id)
    variant = await rows.get(session, ProductVariant, variant_id)
    if plan is None or variant is None:
        return None
    return Plan(plan, variant, quantity, decimals)


async def load(session: AsyncSession, sub: Subscription) -> Loaded:
    merchant = await rows.get(session, Merchant, sub.merchant_id)
    customer = await rows.get(session, Customer, sub.customer_id) if sub.customer_id else None
    product = await rows.get(session, Product, sub.product_id)
    current = await plan_of(session, sub.selling_plan_id, sub.variant_id, sub.quantity, sub.decimals)
    if product is None or current is None:  # products' plans and variants are never deleted under a subscription
        raise LookupError(f"subscription {sub.id} lost its product, plan or variant")
    target = None
    if sub.pending_update:
        p = sub.pending_update
        target = await plan_of(session, p["target_selling_plan_id"], p["target_variant_id"], p["target_quantity"],
                               sub.decimals)
    return Loaded(sub, merchant.name if merchant else "", customer, product, current, target)
