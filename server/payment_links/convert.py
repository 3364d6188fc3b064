from __future__ import annotations

from paygate.v1 import payment_links_pb2 as pb
from paygate.v1.money_pb2 import VariantPrice

from server import json_fields
from server.payment_links.service import Loaded
from server.products.models import ProductVariant
from server.validate import money_text


def url_of(checkout_base: str, link_id: str) -> str:
    return f"{checkout_base}/{link_id}"


def product_of(loaded: Loaded) -> pb.PaymentLinkProduct:
    p = loaded.product
    return pb.PaymentLinkProduct(id=p.id, name=p.name, description=p.description, active=p.active)


def _variant(v: ProductVariant) -> pb.PaymentLinkVariant:
    return pb.PaymentLinkVariant(id=v.id, price=VariantPrice(amount=money_text(v.price), currency=v.currency,
                                                                        asset_id=v.currency))


def to_proto(loaded: Loaded, checkout_base: str, *, with_price_range: bool = False) -> pb.PaymentLink:
    link = loaded.link
    out = pb.PaymentLink(id=link.id, object="payment_link", active=link.active, url=url_of(checkout_base, link.id),
                         product=product_of(loaded), created_at=link.created_at, updated_at=link.updated_at,
                         default_variant_id=link.default_variant_id, return_url=link.return_url)
    for item in loaded.items:
        variant = loaded.variants[item.variant_id]
        if item.kind == "primary":
            out.primary_variants.add(variant_id=item.variant_id, is_primary=item.variant_id == link.default_variant_id,
                                     quantity=item.quantity, variant=_variant(variant))
        else:
            out.addon_variants.add(variant_id=item.variant_id, min_quantity=item.min_quantity,
                                   max_quantity=item.max_quantity, variant=_variant(variant))
    json_fields.fill(out.variant_config, link.variant_config)
    if with_price_range:
        prices = [loaded.variants[i.variant_id].price for i in loaded.items if i.kind == "primary"]
        out.price_range.CopyFrom(pb.PriceRange(min=money_text(min(prices)), max=money_text(max(prices)),
                                               currency=loaded.product.default_currency))
    return out
