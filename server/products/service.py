"""Products: create, list, retrieve, update (version + 1), delete. Scoped to the caller's merchant and mode.

An update never takes away what subscriptions and open purchases stand on (`_refuse_*_in_use`): they name their
selling plan and variant by id, with no foreign key, and price every cycle from them in the product's currency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from paygate.v1 import products_pb2 as pb
from paygate.v1.money_pb2 import Price
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields
from server.catalogue.catalogue import Catalogue
from server.clock import now_of
from server.context import Caller
from server.errors import Conflict, invalid
from server.ids import new_id
from server.paging import Page, newest_first
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import OPEN_FOR_PAYMENT
from server.payment_intents.states import Status as IntentStatus
from server.payment_links.models import PaymentLink, PaymentLinkItem
from server.products.convert import option_names, plan_to_proto, variant_to_proto
from server.products.models import Product, ProductVariant, SellingPlan
from server.products.rules import ProductSpec, Requested, normalize
from server.scoping import find_owned, get_owned, in_scope
from server.selling_plans import membership
from server.selling_plans.models import SellingPlanGroup
from server.subscriptions.models import Subscription
from server.subscriptions.states import Status as SubscriptionStatus
from server.validate import money_text

MAX_PAGE_SIZE = 50
MAX_GROUPS = 20
UPDATABLE = frozenset(
    f.name for f in pb.UpdateProductRequest.DESCRIPTOR.fields if f.name not in ("id", "update_mask")
)


@dataclass
class Loaded:
    product: Product
    variants: list[ProductVariant]
    plans: list[SellingPlan]
    group_ids: list[str] = field(default_factory=list)


async def find(session: AsyncSession, caller: Caller, product_id: str) -> Product | None:
    return await find_owned(session, Product, product_id, caller)


async def get(session: AsyncSession, caller: Caller, product_id: str, *, lock: bool = False) -> Loaded:
    """The caller's product with its variants and plans (see server/scoping.py for the refusals); with `lock`, the
    product's row is held to the end of the transaction, so that two changes of one product run one after the other
    (each its own `version`, neither undoing the other's variants)."""
    row = await get_owned(session, Product, product_id, caller, "product", lock=lock)
    return (await _load(session, [row]))[0]


async def _load(session: AsyncSession, products: list[Product]) -> list[Loaded]:
    ids = [p.id for p in products]
    variants = await session.exec(
        select(ProductVariant).where(col(ProductVariant.product_id).in_(ids)).order_by(col(ProductVariant.position)))
    plans = await membership.plans_of(session, ids)
    groups = await membership.group_ids_of(session, ids)
    loaded = {p.id: Loaded(p, [], plans[p.id], groups[p.id]) for p in products}
    for v in variants:
        loaded[v.product_id].variants.append(v)
    return [loaded[i] for i in ids]


def _requested_from_create(r: pb.CreateProductRequest) -> Requested:
    return Requested(
        name=r.name, description=r.description, active=r.active if r.HasField("active") else True,
        default_currency=r.default_currency, fixed_price=r.fixed_price if r.HasField("fixed_price") else None,
        options=list(r.options), variants=list(r.variants), metadata=r.metadata,
        collect_shipping_address=r.collect_shipping_address, collect_tax_address=r.collect_tax_address,
        image_url=r.image_url, selling_plans=list(r.selling_plans),
    )


async def create(session: AsyncSession, caller: Caller, catalogue: Catalogue,
                 request: pb.CreateProductRequest) -> Loaded:
    spec = normalize(catalogue, _requested_from_create(request))
    named = [f"variants[{i}].id" for i, v in enumerate(spec.variants) if v.id]
    named += [f"selling_plans[{i}].id" for i, p in enumerate(spec.selling_plans) if p.id]
    if named:
        raise invalid(named[0], "ids are assigned by paygate; omit them on create")
    now = now_of(session)
    product = Product(id=new_id("prod"), merchant_id=caller.merchant_id, livemode=caller.livemode,
                      name=spec.name, default_currency=spec.default_currency, created_at=now, updated_at=now)
    _write_fields(product, spec)
    groups = await _groups(session, caller, list(request.selling_plan_group_ids))
    session.add(product)
    await session.flush()
    await _sync_children(session, product, spec, Loaded(product, [], []))
    if groups:
        await membership.set_groups(session, product, groups)
    return (await _load(session, [product]))[0]


async def _groups(session: AsyncSession, caller: Caller, ids: list[str]) -> list[str]:
    if len(ids) > MAX_GROUPS:
        raise invalid("selling_plan_group_ids", f"at most {MAX_GROUPS} selling plan groups")
    out: list[str] = []
    for i, group_id in enumerate(ids):
        group = await find_owned(session, SellingPlanGroup, group_id.strip(), caller)
        if group is None:
            raise invalid(f"selling_plan_group_ids[{i}]", f"{group_id!r} is not a selling plan group of yours")
        out.append(group.id)
    return out


def _write_fields(product: Product, spec: ProductSpec) -> None:
    product.name = spec.name
    product.description = spec.description
    product.active = spec.active
    product.default_currency = spec.default_currency
    product.fixed_price = spec.fixed_price
    product.options = spec.options
    product.metadata_ = spec.metadata
    product.collect_shipping_address = spec.collect_shipping_address
    product.collect_tax_address = spec.collect_tax_address
    product.image_url = spec.image_url


async def _sync_children(session: AsyncSession, product: Product, spec: ProductSpec,
                         current: Loaded) -> tuple[list[ProductVariant], list[SellingPlan]]:
    """Keep children named by id, add those without one, remove the rest (unless a payment link sells them, or a
    subscription or an open purchase uses them)."""
    existing_variants = {v.id: v for v in current.variants}
    variants = []
    for i, v in enumerate(spec.variants):
        if v.id and v.id not in existing_variants:
            raise invalid(f"variants[{i}].id", f"{v.id!r} is not a variant of this product")
        row = existing_variants.pop(v.id) if v.id else ProductVariant(
            id=new_id("var"), product_id=product.id, position=i, price=v.price, currency=spec.default_currency)
        row.position, row.option_values, row.price, row.currency = i, v.option_values, v.price, spec.default_currency
        row.active, row.inventory_quantity, row.sku = v.active, v.inventory_quantity, v.sku
        session.add(row)
        variants.append(row)
    if existing_variants:
        used = (await session.exec(
            select(PaymentLinkItem.variant_id, PaymentLinkItem.link_id)
            .where(col(PaymentLinkItem.variant_id).in_(list(existing_variants))).limit(1))).first()
        if used:
            raise invalid("variants",
                          f"variant {used[0]} is sold by payment link {used[1]}; keep it, or set it inactive")
        await _refuse_removal_in_use(session, product.id, _VARIANT, set(existing_variants))
        for row in existing_variants.values():
            await session.delete(row)
    plans = await _sync_plans(session, product, spec, current)
    await session.flush()
    return variants, plans


async def _sync_plans(session: AsyncSession, product: Product, spec: ProductSpec,
                      current: Loaded) -> list[SellingPlan]:
    """The product's plans are its groups' plans (server/selling_plans/): one named by id is changed where it lives;
    one without an id joins the product's own group; one left out leaves its group, unless the group applies to
    other products too (then it is changed through /v1/selling_plans, or the product leaves the group)."""
    existing_plans = {p.id: p for p in current.plans}
    if not spec.selling_plans and not existing_plans:
        return []
    own = await membership.own_group(session, product)
    now = now_of(session)
    plans = []
    for i, p in enumerate(spec.selling_plans):
        if p.id and p.id not in existing_plans:
            raise invalid(f"selling_plans[{i}].id", f"{p.id!r} is not a selling plan of this product")
        plan = existing_plans.pop(p.id) if p.id else SellingPlan(
            id=new_id("sp"), group_id=own.id, merchant_id=product.merchant_id, livemode=product.livemode,
            position=i, name=p.name, billing_cycle=p.billing_cycle, created_at=now, updated_at=now)
        changed = (plan.name, plan.description, plan.billing_cycle, plan.billing_cycle_interval,
                   plan.trial_period_days, plan.pricing_policies) != (
            p.name, p.description, p.billing_cycle, p.billing_cycle_interval, p.trial_period_days, p.pricing_policies)
        if plan.group_id == own.id:
            plan.position = i
        plan.name, plan.description = p.name, p.description
        plan.billing_cycle, plan.billing_cycle_interval = p.billing_cycle, p.billing_cycle_interval
        plan.trial_period_days, plan.pricing_policies = p.trial_period_days, p.pricing_policies
        if changed and p.id:
            plan.updated_at, plan.version = now, plan.version + 1
        session.add(plan)
        plans.append(plan)
    if existing_plans:
        shared = await membership.products_of(session, sorted({p.group_id for p in existing_plans.values()}))
        for plan in existing_plans.values():
            if shared[plan.group_id] != [product.id]:
                raise invalid("selling_plans", f"selling plan {plan.id} belongs to selling plan group "
                                               f"{plan.group_id}, which applies to other products too; remove it "
                                               "through /v1/selling_plans, or take the product out of the group")
        await _refuse_removal_in_use(session, product.id, _PLAN, set(existing_plans))
    for plan in existing_plans.values():
        await session.delete(plan)
    return plans


async def _refuse_leaving_in_use(session: AsyncSession, product: Product, current: Loaded, groups: list[str]) -> None:
    """Leaving a group takes its plans from the product: refused as removing them is, while something uses one."""
    own = await membership.own_group_id(session, product.id)
    leaving = {p.id for p in current.plans if p.group_id not in groups and p.group_id != own}
    if leaving:
        await _refuse_removal_in_use(session, product.id, _PLAN, leaving)


# ---------------------------------------------------------------- what subscriptions and purchases stand on


async def _subscription_using(session: AsyncSession, product_id: str, plan_ids: set[str],
                              variant_ids: set[str]) -> str | None:
    """A subscription of the product that bills one of these plans or variants, in any status (a canceled one is
    still read with its plan and variant, server/subscriptions/aggregate.py), or that a scheduled plan change moves
    to one at its period end (not once canceled: no period end comes)."""
    billing = col(Subscription.selling_plan_id).in_(sorted(plan_ids)) | \
        col(Subscription.variant_id).in_(sorted(variant_ids))
    found = (await session.exec(select(Subscription.id).where(
        Subscription.product_id == product_id, billing).limit(1))).first()
    if found:
        return found
    # pending_update is JSON (stored as JSON null when unset on some databases): read and checked here.
    live = await session.exec(select(Subscription.id, Subscription.pending_update).where(
        Subscription.product_id == product_id, Subscription.status != SubscriptionStatus.CANCELED))
    for sub_id, pending in live:
        if pending and (pending.get("target_selling_plan_id") in plan_ids
                        or pending.get("target_variant_id") in variant_ids):
            return sub_id
    return None


def _open(now: int) -> sa.ColumnElement[bool]:
    """An intent that may still be paid: Processing, or open for payment until its expiry (as stock.py holds)."""
    status = col(PaymentIntent.status)
    return (status == IntentStatus.PROCESSING) | (
        status.in_(OPEN_FOR_PAYMENT) & (col(PaymentIntent.expired_at) > now))


async def _open_purchases(session: AsyncSession, product_id: str) -> list[tuple[str, Any]]:
    """(id, link_snapshot) of the product's payment link purchases that may still be paid: completing one makes a
    subscription or a sale from the variants and plan its snapshot names, priced in the currency it was made in."""
    rows = await session.exec(select(PaymentIntent.id, PaymentIntent.link_snapshot).where(
        PaymentIntent.link_product_id == product_id, _open(now_of(session))))
    return [(intent_id, snapshot) for intent_id, snapshot in rows]


def _names(snapshot: dict[str, Any] | None, key: str) -> set[str]:
    return {str(item.get(key) or "") for item in (snapshot or {}).get("items", ())}


@dataclass(frozen=True)
class _Kind:
    """What a product update removes: its request field, its key in a purchase's snapshot, how a purchase uses it,
    and what the merchant may do instead."""

    field: str
    snapshot_key: str
    noun: str
    used_as: str
    instead: str


_VARIANT = _Kind("variants", "variant_id", "variant", "bought", "keep it, or set it inactive")
_PLAN = _Kind("selling_plans", "selling_plan_id", "selling plan", "chosen", "keep it")


async def _refuse_removal_in_use(session: AsyncSession, product_id: str, kind: _Kind, removed: set[str]) -> None:
    """A removed variant or plan that a subscription or an open purchase still reads is refused, naming the field."""
    plans, variants = (removed, set()) if kind is _PLAN else (set(), removed)
    sub_id = await _subscription_using(session, product_id, plans, variants)
    if sub_id:
        raise invalid(kind.field, f"a removed {kind.noun} ({', '.join(sorted(removed))}) is used by subscription "
                                  f"{sub_id}; {kind.instead}")
    for intent_id, snapshot in await _open_purchases(session, product_id):
        if used := _names(snapshot, kind.snapshot_key) & removed:
            raise invalid(kind.field, f"{kind.noun} {min(used)} is {kind.used_as} by payment intent {intent_id}, "
                                      f"which may still be paid; {kind.instead}")


async def _refuse_currency_change_in_use(session: AsyncSession, product: Product, currency: str) -> None:
    """Subscriptions keep their currency but price each cycle from the variant: a new currency's numbers would be
    billed in the old one. So the currency changes only once no subscription is live and no purchase is open."""
    if currency == product.default_currency:
        return
    sub_id = (await session.exec(select(Subscription.id).where(
        Subscription.product_id == product.id, Subscription.status != SubscriptionStatus.CANCELED).limit(1))).first()
    if sub_id:
        raise invalid("default_currency", f"subscription {sub_id} is billed in {product.default_currency}; the "
                                          "currency can change once every subscription of the product is canceled")
    purchases = await _open_purchases(session, product.id)
    if purchases:
        raise invalid("default_currency", f"payment intent {purchases[0][0]} is priced in "
                                          f"{product.default_currency} and may still be paid; retry once it is "
                                          "paid, canceled or expired")


def _carried_variant(v: ProductVariant, names: list[str]) -> pb.Variant:
    out = variant_to_proto(v, names)
    # Carried-over prices name no currency, so they follow default_currency: a caller who changes only the
    # currency must not be refused over prices it did not send (stored prices are always in that currency).
    out.price.ClearField("currency")
    out.price.ClearField("asset_id")
    return out


def _current_as_requested(loaded: Loaded) -> Requested:
    p = loaded.product
    metadata = json_fields.struct_of(p.metadata_)
    return Requested(
        name=p.name, description=p.description, active=p.active, default_currency=p.default_currency,
        fixed_price=Price(amount=money_text(p.fixed_price)) if p.fixed_price is not None else None,
        options=[pb.ProductOption(name=o["name"], values=[pb.OptionValue(value=v["value"]) for v in o["values"]])
                 for o in p.options],
        variants=[_carried_variant(v, option_names(p.options)) for v in loaded.variants], metadata=metadata,
        collect_shipping_address=p.collect_shipping_address, collect_tax_address=p.collect_tax_address,
        image_url=p.image_url, selling_plans=[plan_to_proto(s) for s in loaded.plans],
    )


def _paths(request: pb.UpdateProductRequest) -> list[str]:
    """The fields to update, as AIP-134 reads a mask: `*` is every field, no mask is every populated field."""
    paths = list(request.update_mask.paths)
    if paths == ["*"]:
        return sorted(UPDATABLE)
    if paths:
        return paths
    populated = []
    for name in sorted(UPDATABLE):
        field = pb.UpdateProductRequest.DESCRIPTOR.fields_by_name[name]
        if field.is_repeated:
            present = len(getattr(request, name)) > 0
        elif field.has_presence:
            present = request.HasField(name)
        else:
            present = getattr(request, name) != field.default_value
        if present:
            populated.append(name)
    return populated


async def update(session: AsyncSession, caller: Caller, catalogue: Catalogue,
                 request: pb.UpdateProductRequest) -> Loaded:
    paths = _paths(request)
    for path in paths:
        if path not in UPDATABLE:
            raise invalid("update_mask", f"{path!r} cannot be updated")
    current = await get(session, caller, request.id, lock=True)
    want = _current_as_requested(current)
    for path in paths:
        if path == "fixed_price":
            want.fixed_price = request.fixed_price if request.HasField("fixed_price") else None
        elif path == "active":
            want.active = request.active if request.HasField("active") else True
        elif path in ("options", "variants", "selling_plans"):
            setattr(want, path, list(getattr(request, path)))
        elif path == "selling_plan_group_ids":
            continue  # memberships, not a field of the product: set below
        else:
            setattr(want, path, getattr(request, path))
    if "variants" in paths and "fixed_price" not in paths and want.fixed_price is not None and (
            len(want.variants) != 1 or want.variants[0].option_values):
        want.fixed_price = None  # the caller turned a simple product into one with variants
    groups = await _groups(session, caller, list(request.selling_plan_group_ids)) \
        if "selling_plan_group_ids" in paths else None
    spec = normalize(catalogue, want)
    product = current.product
    await _refuse_currency_change_in_use(session, product, spec.default_currency)
    _write_fields(product, spec)
    product.version += 1
    product.updated_at = now_of(session)
    session.add(product)
    await _sync_children(session, product, spec, current)
    if groups is not None:
        await _refuse_leaving_in_use(session, product, current, groups)
        await membership.set_groups(session, product, groups)
    return (await _load(session, [product]))[0]


async def delete(session: AsyncSession, caller: Caller, product_id: str) -> None:
    loaded = await get(session, caller, product_id, lock=True)
    link = (await session.exec(select(PaymentLink.id).where(PaymentLink.product_id == product_id).limit(1))).first()
    if link:
        raise Conflict(f"payment link {link} sells this product; delete the link first", reason="product_in_use")
    sub_id = (await session.exec(select(Subscription.id).where(Subscription.product_id == product_id).limit(1))).first()
    if sub_id:  # read with its product, plan and variant for as long as it exists, canceled or not
        raise Conflict(f"subscription {sub_id} is of this product; set the product inactive instead",
                       reason="product_in_use")
    for variant in loaded.variants:
        await session.delete(variant)
    await membership.forget_product(session, product_id)
    await session.flush()
    await session.delete(loaded.product)


async def list_page(session: AsyncSession, caller: Caller, page: Page, active: bool | None) -> tuple[list[Loaded], int]:
    where = in_scope(Product, caller)
    if active is not None:
        where.append(col(Product.active) == active)
    rows, total = await newest_first(session, Product, where, page)
    return await _load(session, rows), total


async def variants_of(session: AsyncSession, product_id: str) -> dict[str, ProductVariant]:
    rows = await session.exec(select(ProductVariant).where(ProductVariant.product_id == product_id))
    return {v.id: v for v in rows}
