"""Selling-plan groups and plans through the SDK's API (DESIGN §17): CRUD scoped to the caller's merchant and mode,
and the price of a variant per cycle under a plan. The rules of a plan's shape are the product's (rules.py), so a
plan made here and one given inline on a product are checked alike."""

from __future__ import annotations

from dataclasses import dataclass

from paygate.v1 import products_pb2 as ppb
from paygate.v1 import selling_plans_pb2 as pb
from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.context import Caller
from server.errors import Conflict, MissingParameter, invalid
from server.ids import new_id
from server.paging import Page, newest_first
from server.products.models import Product, SellingPlan
from server.products.rules import BILLING_CYCLES, POLICY_TYPES, PlanSpec, plans_of_requests
from server.scoping import find_owned, get_owned, in_scope
from server.selling_plans import membership
from server.selling_plans.models import SellingPlanGroup, SellingPlanGroupProduct
from server.subscriptions.models import Subscription
from server.validate import text

STATUSES = ("active", "disabled")
MAX_PRODUCTS = 100
MAX_OPTIONS = 10
_CYCLES = {v: k for k, v in BILLING_CYCLES.items()}
_POLICIES = {v: k for k, v in POLICY_TYPES.items()}


@dataclass
class Group:
    row: SellingPlanGroup
    product_ids: list[str]
    plans: list[SellingPlan]


def _status(field: str, value: str) -> str:
    if value not in STATUSES:
        raise invalid(field, "must be active or disabled")
    return value


def _options(values: list[str]) -> list[str]:
    if len(values) > MAX_OPTIONS:
        raise invalid("options", f"at most {MAX_OPTIONS} options")
    return [text(f"options[{i}]", v.strip()) for i, v in enumerate(values)]


async def _products(session: AsyncSession, caller: Caller, ids: list[str]) -> list[str]:
    if len(ids) > MAX_PRODUCTS:
        raise invalid("product_ids", f"at most {MAX_PRODUCTS} products")
    out: list[str] = []
    for i, product_id in enumerate(ids):
        if await find_owned(session, Product, product_id.strip(), caller) is None:
            raise invalid(f"product_ids[{i}]", f"{product_id!r} is not a product of yours")
        if product_id.strip() not in out:
            out.append(product_id.strip())
    return out


async def _set_products(session: AsyncSession, group: SellingPlanGroup, product_ids: list[str]) -> None:
    for link in await session.exec(select(SellingPlanGroupProduct).where(
            SellingPlanGroupProduct.group_id == group.id)):
        await session.delete(link)
    await session.flush()
    for i, product_id in enumerate(product_ids):
        session.add(SellingPlanGroupProduct(group_id=group.id, product_id=product_id, position=i))


async def _loaded(session: AsyncSession, rows: list[SellingPlanGroup]) -> list[Group]:
    ids = [r.id for r in rows]
    products = await membership.products_of(session, ids)
    plans: dict[str, list[SellingPlan]] = {i: [] for i in ids}
    if ids:
        for plan in await session.exec(select(SellingPlan).where(col(SellingPlan.group_id).in_(ids))
                                       .order_by(col(SellingPlan.position), col(SellingPlan.id))):
            plans[plan.group_id].append(plan)
    return [Group(r, products[r.id], plans[r.id]) for r in rows]


async def get_group(session: AsyncSession, caller: Caller, group_id: str, *, lock: bool = False) -> Group:
    row = await get_owned(session, SellingPlanGroup, group_id, caller, "selling_plan_group", lock=lock)
    return (await _loaded(session, [row]))[0]


async def create_group(session: AsyncSession, caller: Caller, r: pb.CreateSellingPlanGroupRequest) -> Group:
    now = now_of(session)
    name = r.name.strip()
    if not name:
        raise MissingParameter("name")
    row = SellingPlanGroup(id=new_id("spg"), merchant_id=caller.merchant_id, livemode=caller.livemode,
                           name=text("name", name), description=text("description", r.description, max_length=2000),
                           options=_options(list(r.options)), status=_status("status", r.status or "active"),
                           created_at=now, updated_at=now)
    products = await _products(session, caller, list(r.product_ids))
    session.add(row)
    await session.flush()
    await _set_products(session, row, products)
    await session.flush()
    return (await _loaded(session, [row]))[0]


def _paths(request: pb.UpdateSellingPlanGroupRequest | pb.UpdateSellingPlanRequest,
           names: tuple[str, ...]) -> list[str]:
    paths = list(request.update_mask.paths)
    if paths == ["*"]:
        return list(names)
    for path in paths:
        if path not in names:
            raise invalid("update_mask", f"{path!r} cannot be updated")
    if paths:
        return paths
    out = []
    for name in names:
        field = request.DESCRIPTOR.fields_by_name[name]
        value = getattr(request, name)
        present = len(value) > 0 if field.is_repeated else (
            request.HasField(name) if field.message_type is not None else value != field.default_value)
        if present:
            out.append(name)
    return out


async def update_group(session: AsyncSession, caller: Caller, r: pb.UpdateSellingPlanGroupRequest) -> Group:
    paths = _paths(r, ("name", "description", "options", "status", "product_ids"))
    group = await get_group(session, caller, r.id, lock=True)
    row = group.row
    if "name" in paths:
        if not r.name.strip():
            raise MissingParameter("name")
        row.name = text("name", r.name.strip())
    if "description" in paths:
        row.description = text("description", r.description, max_length=2000)
    if "options" in paths:
        row.options = _options(list(r.options))
    if "status" in paths:
        row.status = _status("status", r.status)
    if "product_ids" in paths:
        products = await _products(session, caller, list(r.product_ids))
        if row.owner_product_id and row.owner_product_id not in products:
            row.owner_product_id = None  # no longer the product's own group
        await _set_products(session, row, products)
    row.updated_at = now_of(session)
    session.add(row)
    await session.flush()
    return (await _loaded(session, [row]))[0]


async def _refuse_in_use(session: AsyncSession, plan_ids: list[str]) -> None:
    if not plan_ids:
        return
    sub_id = (await session.exec(select(Subscription.id).where(
        col(Subscription.selling_plan_id).in_(plan_ids)).limit(1))).first()
    if sub_id:
        raise Conflict(f"subscription {sub_id} is billed by this selling plan; set it disabled instead",
                       reason="selling_plan_in_use")


async def delete_group(session: AsyncSession, caller: Caller, group_id: str) -> None:
    group = await get_group(session, caller, group_id, lock=True)
    await _refuse_in_use(session, [p.id for p in group.plans])
    for plan in group.plans:
        await session.delete(plan)
    await _set_products(session, group.row, [])
    await session.flush()
    await session.delete(group.row)


async def list_groups(session: AsyncSession, caller: Caller, page: Page) -> tuple[list[Group], int]:
    rows, total = await newest_first(session, SellingPlanGroup, in_scope(SellingPlanGroup, caller), page)
    return await _loaded(session, rows), total


# ---------------------------------------------------------------- plans


def _integer(field: str, value: str, low: int, high: int, default: int) -> int:
    value = value.strip()
    if not value:
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 6 or not low <= int(value) <= high:
        raise invalid(field, f"must be an integer string from {low} to {high}")
    return int(value)


def plan_spec(name: str, description: str, billing_type: str, billing: pb.BillingPolicy,
              policies: list[pb.PricingPolicyItem], trial: str) -> PlanSpec:
    """The SDK's plan fields as the product's plan shape, checked by the product's rules."""
    if billing_type and billing_type != "RECURRING":
        raise invalid("billing_policy_type", "only RECURRING is supported")
    if not billing.interval:
        raise MissingParameter("billing_policy.interval")
    if billing.interval not in _CYCLES:
        raise invalid("billing_policy.interval", "one of day, week, month, year")
    items = []
    for i, p in enumerate(policies):
        at = f"pricing_policy[{i}]"
        if p.policy_type not in _POLICIES:
            raise invalid(f"{at}.policy_type", "FIXED or RECURRING")
        if p.adjustment_type != "PERCENTAGE":
            raise invalid(f"{at}.adjustment_type", "only PERCENTAGE is supported")
        after = _integer(f"{at}.after_cycle", p.after_cycle if p.HasField("after_cycle") else "", 0, 100000, 0)
        items.append(ppb.PricingPolicy(policy_type=_POLICIES[p.policy_type], after_cycle=after,
                                       discount_percentage=p.adjustment_value or "0"))
    request = ppb.SellingPlan(
        name=name, description=description, billing_cycle=_CYCLES[billing.interval],
        billing_cycle_interval=_integer("billing_policy.interval_count", billing.interval_count, 1, 365, 1),
        trial_period_days=_integer("trial_period_days", trial, 0, 730, 0), pricing_policies=items)
    try:
        return plans_of_requests([request])[0]
    except Exception as error:  # the product's rules name `selling_plans[0].…`; here the fields are top-level
        field = getattr(error, "field", None)
        if isinstance(field, str) and field.startswith("selling_plans[0]."):
            raise invalid(_sdk_field(field.removeprefix("selling_plans[0].")), str(error).split(": ", 1)[-1]) \
                from None
        raise


def _sdk_field(field: str) -> str:
    return field.replace("pricing_policies", "pricing_policy").replace("discount_percentage", "adjustment_value")


def _apply(plan: SellingPlan, spec: PlanSpec) -> None:
    plan.name, plan.description = spec.name, spec.description
    plan.billing_cycle, plan.billing_cycle_interval = spec.billing_cycle, spec.billing_cycle_interval
    plan.trial_period_days, plan.pricing_policies = spec.trial_period_days, spec.pricing_policies


async def get_plan(session: AsyncSession, caller: Caller, plan_id: str, *, lock: bool = False) -> SellingPlan:
    return await get_owned(session, SellingPlan, plan_id, caller, "selling_plan", lock=lock)


async def create_plan(session: AsyncSession, caller: Caller, r: pb.CreateSellingPlanRequest) -> SellingPlan:
    group = await find_owned(session, SellingPlanGroup, r.selling_plan_group_id.strip(), caller, lock=True)
    if group is None:
        raise invalid("selling_plan_group_id", f"{r.selling_plan_group_id!r} is not a selling plan group of yours")
    if not r.name.strip():
        raise MissingParameter("name")
    spec = plan_spec(r.name, r.description, r.billing_policy_type, r.billing_policy, list(r.pricing_policy),
                     r.trial_period_days)
    count = (await session.exec(select(func.count()).select_from(SellingPlan).where(
        SellingPlan.group_id == group.id))).one()
    now = now_of(session)
    plan = SellingPlan(id=new_id("sp"), group_id=group.id, merchant_id=caller.merchant_id, livemode=caller.livemode,
                       position=_integer("priority", r.priority, 0, 100000, count), name=spec.name,
                       billing_cycle=spec.billing_cycle, created_at=now, updated_at=now)
    _apply(plan, spec)
    session.add(plan)
    await session.flush()
    return plan


PLAN_FIELDS = ("name", "description", "billing_policy_type", "billing_policy", "pricing_policy",
               "trial_period_days", "priority", "status")


async def update_plan(session: AsyncSession, caller: Caller, r: pb.UpdateSellingPlanRequest) -> SellingPlan:
    paths = _paths(r, PLAN_FIELDS)
    plan = await get_plan(session, caller, r.id, lock=True)
    current = plan_view(plan)
    spec = plan_spec(
        r.name if "name" in paths else plan.name,
        r.description if "description" in paths else plan.description,
        r.billing_policy_type if "billing_policy_type" in paths else "RECURRING",
        r.billing_policy if "billing_policy" in paths else current.billing_policy,
        list(r.pricing_policy if "pricing_policy" in paths else current.pricing_policy),
        r.trial_period_days if "trial_period_days" in paths else str(plan.trial_period_days))
    _apply(plan, spec)
    if "priority" in paths:
        plan.position = _integer("priority", r.priority, 0, 100000, plan.position)
    if "status" in paths:
        plan.status = _status("status", r.status)
    plan.updated_at, plan.version = now_of(session), plan.version + 1
    session.add(plan)
    await session.flush()
    return plan


async def delete_plan(session: AsyncSession, caller: Caller, plan_id: str) -> None:
    plan = await get_plan(session, caller, plan_id, lock=True)
    await _refuse_in_use(session, [plan.id])
    await session.delete(plan)


async def list_plans(session: AsyncSession, caller: Caller, page: Page, group_id: str) -> tuple[list[SellingPlan], int]:
    where = in_scope(SellingPlan, caller)
    if group_id:
        where.append(col(SellingPlan.group_id) == group_id)
    total = (await session.exec(select(func.count()).select_from(SellingPlan).where(*where))).one()
    rows = await session.exec(select(SellingPlan).where(*where).order_by(
        col(SellingPlan.created_at).desc(), col(SellingPlan.id)).offset(page.offset).limit(page.size))
    return list(rows), int(total)


def plan_view(p: SellingPlan) -> pb.GroupSellingPlan:
    out = pb.GroupSellingPlan(
        id=p.id, object="selling_plan", selling_plan_group_id=p.group_id, merchant_id=p.merchant_id, name=p.name,
        description=p.description, billing_policy_type="RECURRING",
        billing_policy=pb.BillingPolicy(interval=p.billing_cycle, interval_count=str(p.billing_cycle_interval)),
        trial_period_days=str(p.trial_period_days), priority=str(p.position), status=p.status,
        created_at=p.created_at, updated_at=p.updated_at, version=p.version)
    for x in p.pricing_policies:
        item = out.pricing_policy.add(policy_type=x["policy_type"], adjustment_type="PERCENTAGE",
                                      adjustment_value=x["discount_percentage"])
        if x["policy_type"] == "RECURRING" or x["after_cycle"]:
            item.after_cycle = str(x["after_cycle"])
    return out


def group_view(g: Group) -> pb.SellingPlanGroup:
    r = g.row
    return pb.SellingPlanGroup(
        id=r.id, object="selling_plan_group", merchant_id=r.merchant_id, name=r.name, description=r.description,
        options=r.options, status=r.status, product_ids=g.product_ids,
        selling_plans=[plan_view(p) for p in g.plans], created_at=r.created_at, updated_at=r.updated_at)
