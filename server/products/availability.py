"""Whether a product's variant can be sold now, and in what quantity.

One rule for the hosted page, which shows an unsellable variant as unavailable, and for pricing a payment link
purchase, which refuses it: a page must never offer what the API refuses, nor the API sell what the page hides.
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


def shortfall(product: Product, variant: ProductVariant, quantity: int = 1) -> Shortfall | None:
    """None when `quantity` of the variant can be sold. A variant without `inventory_quantity` is not tracked, so
    its stock never runs out."""
    if not product.active:
        return Shortfall.ARCHIVED
    if not variant.active:
        return Shortfall.INACTIVE
    stock = variant.inventory_quantity
    if stock is None or stock >= quantity:
        return None
    return Shortfall.SOLD_OUT if stock <= 0 else Shortfall.TOO_FEW


def available(product: Product, variant: ProductVariant) -> bool:
    """What the hosted page shows: at least one unit can be bought."""
    return shortfall(product, variant) is None
