"""Which plans a product has: the plans of the groups that name it. The one query every reader of a product's plans
uses (products, checkout, payment intents, subscriptions), so the two views of DESIGN §17 cannot drift apart."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.ids import new_id
from server.products.models import Product, SellingPlan
from server.selling_plans.models import SellingPlanGroup, SellingPlanGroupProduct

ACTIVE = "active"


async def plans_of(session: AsyncSession, product_ids: Sequence[str]) -> dict[str, list[SellingPlan]]:
    """Each product's plans, by group (oldest first), then by the plan's position in its group."""
    out: dict[str, list[SellingPlan]] = {p: [] for p in product_ids}
    if not product_ids:
        return out
    rows = await session.exec(
        select(SellingPlanGroupProduct.product_id, SellingPlan)
        .join(SellingPlan, col(SellingPlan.group_id) == col(SellingPlanGroupProduct.group_id))
        .join(SellingPlanGroup, col(SellingPlanGroup.id) == col(SellingPlanGroupProduct.group_id))
        .where(col(SellingPlanGroupProduct.product_id).in_(list(product_ids)))
        .order_by(col(SellingPlanGroup.sort_key), col(SellingPlan.position), col(SellingPlan.id)))
    for product_id, plan in rows:
        out[product_id].append(plan)
    return out


async def plan_of_product(session: AsyncSession, plan_id: str, product_id: str) -> SellingPlan | None:
    """The plan when one of the product's groups holds it, else None."""
    if not plan_id:
        return None
    return (await session.exec(
        select(SellingPlan)
        .join(SellingPlanGroupProduct, col(SellingPlanGroupProduct.group_id) == col(SellingPlan.group_id))
        .where(SellingPlan.id == plan_id, SellingPlanGroupProduct.product_id == product_id))).first()


async def taking_subscribers(session: AsyncSession, plans: Sequence[SellingPlan]) -> list[SellingPlan]:
    """The plans a shopper may choose (`takes_subscribers`), in their order."""
    groups = sorted({p.group_id for p in plans if p.status == ACTIVE})
    active = set(await session.exec(select(SellingPlanGroup.id).where(
        col(SellingPlanGroup.id).in_(groups), SellingPlanGroup.status == ACTIVE))) if groups else set()
    return [p for p in plans if p.status == ACTIVE and p.group_id in active]


async def takes_subscribers(session: AsyncSession, plan: SellingPlan) -> bool:
    """Whether a new purchase or a plan change may choose the plan: it and its group are active. A disabled plan
    keeps billing the subscriptions it has; it only takes no new ones."""
    if plan.status != ACTIVE:
        return False
    group = await session.get(SellingPlanGroup, plan.group_id)
    return group is not None and group.status == ACTIVE


async def groups_of(session: AsyncSession, product_id: str) -> list[SellingPlanGroup]:
    rows = await session.exec(
        select(SellingPlanGroup)
        .join(SellingPlanGroupProduct, col(SellingPlanGroupProduct.group_id) == col(SellingPlanGroup.id))
        .where(SellingPlanGroupProduct.product_id == product_id))
    return list(rows)


async def products_of(session: AsyncSession, group_ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {g: [] for g in group_ids}
    if not group_ids:
        return out
    rows = await session.exec(select(SellingPlanGroupProduct.group_id, SellingPlanGroupProduct.product_id)
                              .where(col(SellingPlanGroupProduct.group_id).in_(list(group_ids)))
                              .order_by(col(SellingPlanGroupProduct.position)))
    for group_id, product_id in rows:
        out[group_id].append(product_id)
    return out


async def own_group_id(session: AsyncSession, product_id: str) -> str | None:
    return (await session.exec(select(SellingPlanGroup.id).where(
        SellingPlanGroup.owner_product_id == product_id))).first()


async def own_group(session: AsyncSession, product: Product) -> SellingPlanGroup:
    """The group holding the product's inline plans, made (and naming the product) on first use."""
    found = (await session.exec(select(SellingPlanGroup).where(
        SellingPlanGroup.owner_product_id == product.id))).first()
    if found is not None:
        return found
    group = SellingPlanGroup(id=new_id("spg"), merchant_id=product.merchant_id, livemode=product.livemode,
                             name=product.name[:255], owner_product_id=product.id, created_at=product.updated_at,
                             updated_at=product.updated_at)
    session.add(group)
    await session.flush()
    session.add(SellingPlanGroupProduct(group_id=group.id, product_id=product.id))
    await session.flush()
    return group


async def forget_product(session: AsyncSession, product_id: str) -> None:
    """A deleted product leaves every group; its own group goes with its plans."""
    for link in await session.exec(select(SellingPlanGroupProduct).where(
            SellingPlanGroupProduct.product_id == product_id)):
        await session.delete(link)
    own = (await session.exec(select(SellingPlanGroup).where(
        SellingPlanGroup.owner_product_id == product_id))).first()
    await session.flush()
    if own is None:
        return
    if (await session.exec(select(SellingPlanGroupProduct).where(
            SellingPlanGroupProduct.group_id == own.id).limit(1))).first() is not None:
        own.owner_product_id = None  # other products still read its plans: it stays, as an ordinary group
        session.add(own)
        return
    for plan in await session.exec(select(SellingPlan).where(SellingPlan.group_id == own.id)):
        await session.delete(plan)
    await session.flush()
    await session.delete(own)


async def group_ids_of(session: AsyncSession, product_ids: Sequence[str]) -> dict[str, list[str]]:
    """Each product's groups, oldest first: the order `plans_of` reads their plans in."""
    out: dict[str, list[str]] = {p: [] for p in product_ids}
    if not product_ids:
        return out
    rows = await session.exec(
        select(SellingPlanGroupProduct.product_id, SellingPlanGroupProduct.group_id)
        .join(SellingPlanGroup, col(SellingPlanGroup.id) == col(SellingPlanGroupProduct.group_id))
        .where(col(SellingPlanGroupProduct.product_id).in_(list(product_ids)))
        .order_by(col(SellingPlanGroup.sort_key), col(SellingPlanGroup.id)))
    for product_id, group_id in rows:
        out[product_id].append(group_id)
    return out


async def set_groups(session: AsyncSession, product: Product, group_ids: Sequence[str]) -> None:
    """The product belongs to exactly these groups (checked to be its merchant's and mode's by the caller) and to its
    own group, which its inline plans govern."""
    wanted = list(dict.fromkeys(group_ids))
    for link in await session.exec(select(SellingPlanGroupProduct).where(
            SellingPlanGroupProduct.product_id == product.id)):
        owner = await session.get(SellingPlanGroup, link.group_id)
        if link.group_id in wanted:
            wanted.remove(link.group_id)
        elif owner is None or owner.owner_product_id != product.id:
            await session.delete(link)
    await session.flush()
    for group_id in wanted:
        last = (await session.exec(select(SellingPlanGroupProduct.position).where(
            SellingPlanGroupProduct.group_id == group_id).order_by(col(SellingPlanGroupProduct.position).desc())
            .limit(1))).first()
        session.add(SellingPlanGroupProduct(group_id=group_id, product_id=product.id,
                                            position=0 if last is None else last + 1))
    await session.flush()
