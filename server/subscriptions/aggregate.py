"""A subscription with what its API shape shows: the merchant's name, the customer, the product, the variant and
the selling plan (and the target plan of a pending update)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.customers.models import Customer
from server.merchants.models import Merchant
from server.products.models import Product, ProductVariant, SellingPlan
from server.subscriptions import session_rows
from server.subscriptions.cycles import Cycle
from server.subscriptions.models import Subscription
from server.subscriptions.pricing import Policy, Tier, tier


@dataclass
class Plan:
    """A (selling plan, variant, quantity) with the means to price its cycles. Its rows are not written while it
    is in use (see session_rows.py), so its policies and the tiers asked for are worked out once."""

    plan: SellingPlan
    variant: ProductVariant
    quantity: int
    decimals: int
    _tiers: dict[int, Tier] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def cycle(self) -> Cycle:
        return Cycle.of(self.plan.billing_cycle, self.plan.billing_cycle_interval)

    @cached_property
    def policies(self) -> tuple[Policy, ...]:
        return tuple(Policy.of(p) for p in self.plan.pricing_policies)

    def tier(self, n: int) -> Tier:
        n = max(1, n)
        found = self._tiers.get(n)
        if found is None:
            found = self._tiers[n] = tier(self.variant.price, self.quantity, list(self.policies), n, self.decimals)
        return found


@dataclass
class Loaded:
    sub: Subscription
    merchant_name: str
    customer: Customer | None
    product: Product
    current: Plan
    read_at: int  # the runtime's clock when loaded: "now" for what its API shape shows (hours since creation)
    target: Plan | None = None  # of the pending update

    @property
    def option_names(self) -> list[str]:
        return [o["name"] for o in self.product.options]


async def plan_of(session: AsyncSession, plan_id: str, variant_id: str, quantity: int, decimals: int) -> Plan | None:
    """One Plan per (plan, variant, quantity, decimals) for the life of the session, like its rows (a renewal
    sweep's batch shares one)."""
    plans: dict[tuple[str, str, int, int], Plan] = session.info.setdefault("paygate.plans", {})
    key = (plan_id, variant_id, quantity, decimals)
    if key in plans:
        return plans[key]
    plan = await session_rows.get(session, SellingPlan, plan_id)
    variant = await session_rows.get(session, ProductVariant, variant_id)
    if plan is None or variant is None:
        return None
    found = plans[key] = Plan(plan, variant, quantity, decimals)
    return found


async def load(session: AsyncSession, sub: Subscription) -> Loaded:
    merchant = await session_rows.get(session, Merchant, sub.merchant_id)
    customer = await session_rows.get(session, Customer, sub.customer_id) if sub.customer_id else None
    product = await session_rows.get(session, Product, sub.product_id)
    current = await plan_of(session, sub.selling_plan_id, sub.variant_id, sub.quantity, sub.decimals)
    if product is None or current is None:  # products' plans and variants are never deleted under a subscription
        raise LookupError(f"subscription {sub.id} lost its product, plan or variant")
    target = None
    if sub.pending_update:
        p = sub.pending_update
        target = await plan_of(session, p["target_selling_plan_id"], p["target_variant_id"], p["target_quantity"],
                               sub.decimals)
    return Loaded(sub, merchant.name if merchant else "", customer, product, current, now_of(session), target)
