"""Whether a product's variant can be sold now, and in what quantity.

One rule for the hosted page, which shows an unsellable variant as unavailable, and for pricing a payment link
purchase, which refuses it: a page must never offer what the API refuses, nor the API sell what the page hides.
Units held by open checkouts (server/products/stock.py) are not for sale: callers pass what is held (`stock.held`).
"""

from __future__ import annotations

from enum import Enum

from server.products.models import Product, ProductVariant


class Shortfall(Enum):
    """Why a variant cannot be sold in the quantity asked."""

    ARCHIVED = "archived"  # the whole product is no longer sold
    INACTIVE = "inactive"  # this variant is no longer sold
    SOLD_OUT = "sold_out"  # its stock is tracked and none is left
    TOO_FEW = "too_few"  # some is left, less than the quantity asked


def left(variant: ProductVariant, held: int = 0) -> int | None:
    """Units of the variant still for sale: its stock less what open checkouts hold (never below 0); None when
    its stock is not tracked."""
    stock = variant.inventory_quantity
    return None if stock is None else max(stock - held, 0)


def shortfall(product: Product, variant: ProductVariant, quantity: int = 1, held: int = 0) -> Shortfall | None:
    """None when `quantity` of the variant can be sold while open checkouts hold `held` of it. A variant without
    `inventory_quantity` is not tracked, so its stock never runs out."""
    if not product.active:
        return Shortfall.ARCHIVED
    if not variant.active:
        return Shortfall.INACTIVE
    units = left(variant, held)
    if units is None or units >= quantity:
        return None
    return Shortfall.SOLD_OUT if units == 0 else Shortfall.TOO_FEW


def available(product: Product, variant: ProductVariant, held: int = 0) -> bool:
    """What the hosted page shows: at least one unit can be bought."""
    return shortfall(product, variant, held=held) is None
