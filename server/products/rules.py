"""The shape rules of a product, checked the same way on create and on update.

`normalize` turns the requested state into checked values or raises `parameter_invalid` naming the field
(`variants[2].price.amount`). A simple product has `fixed_price` and one variant without option values; a product
with options has one variant per distinct combination of option values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from paygate.v1 import products_pb2 as pb
from paygate.v1.money_pb2 import Price, VariantPrice

from server import json_fields, money, validate
from server.catalogue.catalogue import Catalogue
from server.errors import MissingParameter, invalid

MAX_OPTIONS = 3
MAX_VALUES = 100
MAX_VARIANTS = 100
MAX_SELLING_PLANS = 20
BILLING_CYCLES = {pb.BILLING_CYCLE_DAY: "day", pb.BILLING_CYCLE_WEEK: "week", pb.BILLING_CYCLE_MONTH: "month",
                  pb.BILLING_CYCLE_YEAR: "year"}
POLICY_TYPES = {pb.PRICING_POLICY_TYPE_FIXED: "FIXED", pb.PRICING_POLICY_TYPE_RECURRING: "RECURRING"}


@dataclass
class VariantSpec:
    id: str
    option_values: dict[str, str]
    price: Decimal
    active: bool
    inventory_quantity: int | None
    sku: str


@dataclass
class PlanSpec:
    id: str
    name: str
    description: str
    billing_cycle: str
    billing_cycle_interval: int
    trial_period_days: int
    pricing_policies: list[dict[str, Any]]


@dataclass
class ProductSpec:
    name: str
    description: str
    active: bool
    default_currency: str
    fixed_price: Decimal | None
    options: list[dict[str, Any]]
    variants: list[VariantSpec]
    metadata: dict[str, Any]
    collect_shipping_address: bool
    collect_tax_address: bool
    image_url: str
    selling_plans: list[PlanSpec] = field(default_factory=list)


@dataclass
class Requested:
    """The product state a caller asks for, still as protobuf values."""

    name: str
    description: str
    active: bool
    default_currency: str
    fixed_price: Price | None
    options: list[pb.ProductOption]
    variants: list[pb.Variant]
    metadata: Any
    collect_shipping_address: bool
    collect_tax_address: bool
    image_url: str
    selling_plans: list[pb.SellingPlan]


def _currency(catalogue: Catalogue, name: str, code: str) -> str:
    code = code.strip()
    asset = catalogue.currency(code) or catalogue.currency(code.upper())
    if asset is None:
        raise invalid(name, f"unknown currency {code!r}")
    return asset.id


def _price(catalogue: Catalogue, name: str, price: Price | VariantPrice, currency: str) -> Decimal:
    if not price.amount:
        raise MissingParameter(f"{name}.amount")
    known = catalogue.currency(currency)
    decimals = known.decimals if known is not None else money.MAX_DECIMALS
    amount = validate.amount(f"{name}.amount", price.amount, decimals=decimals)
    if price.currency and _currency(catalogue, f"{name}.currency", price.currency) != currency:
        raise invalid(f"{name}.currency", f"must be the product's default_currency {currency}")
    if isinstance(price, VariantPrice) and price.asset_id and \
            _currency(catalogue, f"{name}.asset_id", price.asset_id) != currency:
        raise invalid(f"{name}.asset_id", f"must be the product's default_currency {currency}")
    return amount


def _options(options: list[pb.ProductOption]) -> list[dict[str, Any]]:
    if len(options) > MAX_OPTIONS:
        raise invalid("options", f"at most {MAX_OPTIONS} options")
    seen: set[str] = set()
    out = []
    for i, option in enumerate(options):
        name = option.name.strip()
        if not name:
            raise MissingParameter(f"options[{i}].name")
        if name.lower() in seen:
            raise invalid(f"options[{i}].name", f"duplicate option {name!r}")
        seen.add(name.lower())
        values = [v.value.strip() for v in option.values]
        if not values or len(values) > MAX_VALUES:
            raise invalid(f"options[{i}].values", f"give 1 to {MAX_VALUES} values")
        if any(not v for v in values) or len(set(values)) != len(values):
            raise invalid(f"options[{i}].values", "values must be non-empty and distinct")
        out.append({"name": name, "values": [{"value": v} for v in values]})
    return out


def _variants(catalogue: Catalogue, variants: list[pb.Variant], options: list[dict[str, Any]],
              currency: str) -> list[VariantSpec]:
    if len(variants) > MAX_VARIANTS:
        raise invalid("variants", f"at most {MAX_VARIANTS} variants")
    allowed = {o["name"]: {v["value"] for v in o["values"]} for o in options}
    seen: set[tuple[tuple[str, str], ...]] = set()
    out = []
    for i, v in enumerate(variants):
        where = f"variants[{i}]"
        values = {k.strip(): val.strip() for k, val in v.option_values.items()}
        if set(values) != set(allowed):
            raise invalid(f"{where}.option_values", f"must name a value of each option: {sorted(allowed) or 'none'}")
        for name, value in values.items():
            if value not in allowed[name]:
                raise invalid(f"{where}.option_values", f"{value!r} is not a value of option {name!r}")
        combination = tuple(sorted(values.items()))
        if combination in seen:
            raise invalid(f"{where}.option_values", "another variant has the same option values")
        seen.add(combination)
        if not v.HasField("price"):
            raise MissingParameter(f"{where}.price")
        if v.HasField("inventory_quantity") and v.inventory_quantity < 0:
            raise invalid(f"{where}.inventory_quantity", "must be 0 or more")
        out.append(VariantSpec(
            id=v.id, option_values=values, price=_price(catalogue, f"{where}.price", v.price, currency),
            active=v.active if v.HasField("active") else True,
            inventory_quantity=v.inventory_quantity if v.HasField("inventory_quantity") else None,
            sku=validate.text(f"{where}.sku", v.sku),
        ))
    return out


def _plans(plans: list[pb.SellingPlan]) -> list[PlanSpec]:
    if len(plans) > MAX_SELLING_PLANS:
        raise invalid("selling_plans", f"at most {MAX_SELLING_PLANS} selling plans")
    out = []
    for i, p in enumerate(plans):
        where = f"selling_plans[{i}]"
        if not p.name.strip():
            raise MissingParameter(f"{where}.name")
        if p.billing_cycle not in BILLING_CYCLES:
            raise MissingParameter(f"{where}.billing_cycle", f"{where}.billing_cycle: one of day, week, month, year")
        if p.billing_cycle_interval < 0 or p.billing_cycle_interval > 365:
            raise invalid(f"{where}.billing_cycle_interval", "must be from 1 to 365")
        if not 0 <= p.trial_period_days <= 730:
            raise invalid(f"{where}.trial_period_days", "must be from 0 to 730")
        policies = []
        for j, policy in enumerate(p.pricing_policies):
            at = f"{where}.pricing_policies[{j}]"
            if policy.policy_type not in POLICY_TYPES:
                raise MissingParameter(f"{at}.policy_type", f"{at}.policy_type: FIXED or RECURRING")
            if policy.after_cycle < 0:
                raise invalid(f"{at}.after_cycle", "must be 0 or more")
            discount = validate.amount(f"{at}.discount_percentage", policy.discount_percentage or "0")
            if discount > 100:
                raise invalid(f"{at}.discount_percentage", "must be from 0 to 100")
            policies.append({"policy_type": POLICY_TYPES[policy.policy_type], "after_cycle": policy.after_cycle,
                             "discount_percentage": validate.money_text(discount)})
        out.append(PlanSpec(id=p.id, name=validate.text(f"{where}.name", p.name.strip()),
                            description=validate.text(f"{where}.description", p.description, max_length=2000),
                            billing_cycle=BILLING_CYCLES[p.billing_cycle],
                            billing_cycle_interval=p.billing_cycle_interval or 1,
                            trial_period_days=p.trial_period_days, pricing_policies=policies))
    return out


def normalize(catalogue: Catalogue, r: Requested) -> ProductSpec:
    name = r.name.strip()
    if not name:
        raise MissingParameter("name")
    currency = _currency(catalogue, "default_currency", r.default_currency)
    options = _options(r.options)
    fixed_price: Decimal | None = None
    if r.fixed_price is not None:
        fixed_price = _price(catalogue, "fixed_price", r.fixed_price, currency)
        # A simple product: no options, and at most its one default variant (whose price follows fixed_price).
        if options:
            raise invalid("fixed_price", "a product with options prices its variants; omit fixed_price")
        if len(r.variants) > 1 or (r.variants and r.variants[0].option_values):
            raise invalid("fixed_price", "give either fixed_price or variants, not both")
        default = r.variants[0] if r.variants else pb.Variant()
        default = pb.Variant(id=default.id, price=VariantPrice(amount=validate.money_text(fixed_price)),
                             sku=default.sku, **_presence(default))
        variants = _variants(catalogue, [default], options, currency)
    else:
        if options and not r.variants:
            raise MissingParameter("variants", "variants: required when options are given")
        variants = _variants(catalogue, r.variants, options, currency)
    return ProductSpec(
        name=validate.text("name", name), description=validate.text("description", r.description, max_length=5000),
        active=r.active, default_currency=currency, fixed_price=fixed_price, options=options, variants=variants,
        metadata=json_fields.metadata_of(r.metadata) if r.metadata is not None else {},
        collect_shipping_address=r.collect_shipping_address, collect_tax_address=r.collect_tax_address,
        image_url=validate.url("image_url", r.image_url), selling_plans=_plans(r.selling_plans),
    )


def _presence(v: pb.Variant) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if v.HasField("active"):
        out["active"] = v.active
    if v.HasField("inventory_quantity"):
        out["inventory_quantity"] = v.inventory_quantity
    return out


def plans_of_requests(plans: list[pb.SellingPlan]) -> list[PlanSpec]:
    """Selling plans checked as a product's are (server/selling_plans/ makes them through the SDK's API too)."""
    return _plans(plans)
