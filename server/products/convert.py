from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paygate.v1 import products_pb2 as pb
from paygate.v1.money_pb2 import Price, VariantPrice

from server import json_fields
from server.products.models import ProductVariant, SellingPlan
from server.products.rules import BILLING_CYCLES, POLICY_TYPES
from server.validate import money_text

if TYPE_CHECKING:
    from server.products.service import Loaded

_CYCLE_ENUM = {v: k for k, v in BILLING_CYCLES.items()}
_POLICY_ENUM = {v: k for k, v in POLICY_TYPES.items()}


def variant_title(v: ProductVariant, names: Sequence[str]) -> str:
    # In the order of the product's options, not of the stored map: the caller's key order is arbitrary and
    # PostgreSQL's jsonb does not keep it anyway, so the title would differ between create and retrieve.
    return " / ".join(v.option_values[n] for n in names if n in v.option_values) or "Default"


def option_names(options: list[dict[str, Any]]) -> list[str]:
    return [o["name"] for o in options]


def variant_to_proto(v: ProductVariant, names: Sequence[str]) -> pb.Variant:
    price = VariantPrice(amount=money_text(v.price), currency=v.currency, asset_id=v.currency)
    out = pb.Variant(id=v.id, option_values=v.option_values, price=price, active=v.active,
                     title=variant_title(v, names), sku=v.sku)
    if v.inventory_quantity is not None:
        out.inventory_quantity = v.inventory_quantity
    return out


def plan_to_proto(p: SellingPlan) -> pb.SellingPlan:
    return pb.SellingPlan(
        id=p.id, name=p.name, description=p.description, billing_cycle=_CYCLE_ENUM[p.billing_cycle],
        billing_cycle_interval=p.billing_cycle_interval, trial_period_days=p.trial_period_days,
        pricing_policies=[pb.PricingPolicy(policy_type=_POLICY_ENUM[x["policy_type"]], after_cycle=x["after_cycle"],
                                           discount_percentage=x["discount_percentage"]) for x in p.pricing_policies],
    )


def to_proto(loaded: Loaded) -> pb.Product:
    p = loaded.product
    out = pb.Product(
        id=p.id, object="product", name=p.name, description=p.description, active=p.active,
        default_currency=p.default_currency,
        options=[pb.ProductOption(name=o["name"], values=[pb.OptionValue(value=v["value"]) for v in o["values"]])
                 for o in p.options],
        variants=[variant_to_proto(v, option_names(p.options)) for v in loaded.variants],
        collect_shipping_address=p.collect_shipping_address, collect_tax_address=p.collect_tax_address,
        version=p.version, created_at=p.created_at, updated_at=p.updated_at,
        selling_plans=[plan_to_proto(s) for s in loaded.plans], image_url=p.image_url,
        selling_plan_group_ids=loaded.group_ids,
    )
    if p.fixed_price is not None:
        out.fixed_price.CopyFrom(Price(amount=money_text(p.fixed_price), currency=p.default_currency))
    json_fields.fill(out.metadata, p.metadata_)
    return out
