from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import JSONType


class PaymentLink(SQLModel, table=True):
    __tablename__ = "payment_links"
    __table_args__ = (sa.Index("ix_payment_links_scope_newest", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    product_id: str = Field(foreign_key="products.id", index=True, max_length=40)
    active: bool = True
    default_variant_id: str = Field(max_length=40)
    variant_config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSONType, nullable=False))
    # Where the hosted page sends the shopper after paying; its origin receives the page's messages when embedded.
    return_url: str = Field(default="", max_length=2000)
    created_at: int = Field(sa_type=sa.BigInteger)
    # Orders lists newest first, finer than the one-second `created_at`.
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)


class PaymentLinkItem(SQLModel, table=True):
    """One variant of a link: a primary choice or an add-on. Fixed at creation."""

    __tablename__ = "payment_link_items"

    link_id: str = Field(foreign_key="payment_links.id", primary_key=True, max_length=40)
    variant_id: str = Field(foreign_key="product_variants.id", primary_key=True, max_length=40, index=True)
    kind: str = Field(max_length=10)  # "primary" or "addon"
    position: int
    quantity: int = 1
    min_quantity: int = 0
    max_quantity: int = 1
