"""Payment links: create (active), list, retrieve with price range, activate/deactivate, delete when inactive.

The variant configuration (product, default and primary variants, add-ons, variant_config) is fixed at creation.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from paygate.v1 import payment_links_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, validate
from server.clock import now_of
from server.context import Caller
from server.errors import Conflict, invalid
from server.ids import new_id
from server.paging import Page, newest_first
from server.payment_links.models import PaymentLink, PaymentLinkItem
from server.products import service as products
from server.products.models import Product, ProductVariant
from server.scoping import find_owned, get_owned, in_scope

MAX_ADDONS = 20
MAX_PRIMARY = 100


@dataclass
class Loaded:
    link: PaymentLink
    product: Product
    items: list[PaymentLinkItem]
    variants: dict[str, ProductVariant]


async def find(session: AsyncSession, caller: Caller, link_id: str) -> PaymentLink | None:
    return await find_owned(session, PaymentLink, link_id, caller)


async def get(session: AsyncSession, caller: Caller, link_id: str) -> Loaded:
    """The caller's link with its product and variants (see server/scoping.py for the refusals)."""
    row = await get_owned(session, PaymentLink, link_id, caller, "payment_link")
    return (await _load(session, [row]))[0]


async def _load(session: AsyncSession, links: list[PaymentLink]) -> list[Loaded]:
    if not links:
        return []
    ids = [x.id for x in links]
    items = list(await session.exec(select(PaymentLinkItem).where(col(PaymentLinkItem.link_id).in_(ids))
                                    .order_by(col(PaymentLinkItem.position))))
    product_ids = list({x.product_id for x in links})
    product_rows = {p.id: p for p in await session.exec(select(Product).where(col(Product.id).in_(product_ids)))}
    variant_rows = {v.id: v for v in await session.exec(
        select(ProductVariant).where(col(ProductVariant.id).in_([i.variant_id for i in items])))}
    out = []
    for link in links:
        own = [i for i in items if i.link_id == link.id]
        out.append(Loaded(link, product_rows[link.product_id], own,
                          {i.variant_id: variant_rows[i.variant_id] for i in own}))
    return out


async def create(session: AsyncSession, caller: Caller, request: pb.CreatePaymentLinkRequest) -> Loaded:
    product = await products.find(session, caller, request.product_id)
    if product is None:
        raise invalid("product_id", "no such product")
    variants = await products.variants_of(session, product.id)
    primary_ids = [v.strip() for v in request.primary_variant_ids]
    if len(primary_ids) > MAX_PRIMARY:
        raise invalid("primary_variant_ids", f"at most {MAX_PRIMARY} variants")
    if len(set(primary_ids)) != len(primary_ids):
        raise invalid("primary_variant_ids", "each variant may appear once")
    for i, vid in enumerate(primary_ids):
        if vid not in variants:
            raise invalid(f"primary_variant_ids[{i}]", f"{vid!r} is not a variant of product {product.id}")
    if request.default_variant_id not in primary_ids:
        raise invalid("default_variant_id", "must be one of primary_variant_ids")
    if len(request.addon_variants) > MAX_ADDONS:
        raise invalid("addon_variants", f"at most {MAX_ADDONS} add-ons")
    seen = set(primary_ids)
    for i, addon in enumerate(request.addon_variants):
        where = f"addon_variants[{i}]"
        if addon.variant_id not in variants:
            raise invalid(f"{where}.variant_id", f"{addon.variant_id!r} is not a variant of product {product.id}")
        if addon.variant_id in seen:
            raise invalid(f"{where}.variant_id", "a variant can be primary or an add-on once, not both")
        seen.add(addon.variant_id)
        if addon.min_quantity < 0:
            raise invalid(f"{where}.min_quantity", "must be 0 or more")
        if addon.max_quantity < max(1, addon.min_quantity):
            raise invalid(f"{where}.max_quantity", "must be at least 1 and at least min_quantity")
    now = now_of(session)
    link = PaymentLink(id=new_id("pl"), merchant_id=caller.merchant_id, livemode=caller.livemode,
                       product_id=product.id, active=True, default_variant_id=request.default_variant_id,
                       variant_config=json_fields.metadata_of(request.variant_config, "variant_config"),
                       return_url=validate.url("return_url", request.return_url.strip()),
                       created_at=now, updated_at=now)
    session.add(link)
    await session.flush()
    items = [PaymentLinkItem(link_id=link.id, variant_id=vid, kind="primary", position=i)
             for i, vid in enumerate(primary_ids)]
    items += [PaymentLinkItem(link_id=link.id, variant_id=a.variant_id, kind="addon", position=len(primary_ids) + i,
                              min_quantity=a.min_quantity, max_quantity=a.max_quantity)
              for i, a in enumerate(request.addon_variants)]
    session.add_all(items)
    return Loaded(link, product, items, {i.variant_id: variants[i.variant_id] for i in items})


_FIXED_AT_CREATION = ("product_id", "default_variant_id", "primary_variant_ids", "addon_variants", "variant_config")


async def set_active(session: AsyncSession, caller: Caller, request: pb.UpdatePaymentLinkRequest) -> Loaded:
    for name in _FIXED_AT_CREATION:
        field = pb.UpdatePaymentLinkRequest.DESCRIPTOR.fields_by_name[name]
        present = len(getattr(request, name)) if field.is_repeated else request.HasField(name) if \
            field.message_type else getattr(request, name)
        if present:
            raise invalid(name, "the variant configuration of a payment link cannot change after creation")
    loaded = await get(session, caller, request.id)
    if loaded.link.active != request.active:
        loaded.link.active = request.active
        loaded.link.updated_at = now_of(session)
        session.add(loaded.link)
    return loaded


async def delete(session: AsyncSession, caller: Caller, link_id: str) -> None:
    loaded = await get(session, caller, link_id)
    if loaded.link.active:
        raise Conflict("an active payment link cannot be deleted; deactivate it first", reason="payment_link_active")
    await session.exec(sa.delete(PaymentLinkItem).where(col(PaymentLinkItem.link_id) == link_id))
    await session.delete(loaded.link)


async def list_page(session: AsyncSession, caller: Caller, page: Page, active: bool | None,
                    product: str) -> tuple[list[Loaded], int]:
    where = in_scope(PaymentLink, caller)
    if active is not None:
        where.append(col(PaymentLink.active) == active)
    if product:
        where.append(col(PaymentLink.product_id) == product)
    rows, total = await newest_first(session, PaymentLink, where, page)
    return await _load(session, rows), total
