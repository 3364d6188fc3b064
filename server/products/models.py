from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType


class Product(SQLModel, table=True):
    __tablename__ = "products"
    __table_args__ = (sa.Index("ix_products_scope_newest", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    name: str = Field(max_length=255)
    description: str = Field(default="", max_length=5000)
    active: bool = True
    default_currency: str = Field(max_length=20)
    fixed_price: Decimal | None = Field(default=None, sa_column=Column(DecimalText, nullable=True))
    options: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    collect_shipping_address: bool = False
    collect_tax_address: bool = False
    image_url: str = Field(default="", max_length=2000)
    version: int = Field(default=1, sa_type=sa.BigInteger)
    created_at: int = Field(sa_type=sa.BigInteger)
    # Orders lists newest first, finer than the one-second `created_at`.
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)


class ProductVariant(SQLModel, table=True):
    __tablename__ = "product_variants"

    id: str = Field(primary_key=True, max_length=40)
    product_id: str = Field(foreign_key="products.id", index=True, max_length=40)
    position: int
    option_values: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSONType, nullable=False))
    price: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    currency: str = Field(max_length=20)
    active: bool = True
    inventory_quantity: int | None = Field(default=None, sa_type=sa.BigInteger)
    sku: str = Field(default="", max_length=255)


class SellingPlan(SQLModel, table=True):
    """A plan of a selling-plan group (server/selling_plans/models.py); a product's plans are its groups' plans."""

    __tablename__ = "selling_plans"

    id: str = Field(primary_key=True, max_length=40)
    group_id: str = Field(foreign_key="selling_plan_groups.id", index=True, max_length=40)
    merchant_id: str = Field(max_length=40)
    livemode: bool
    position: int
    name: str = Field(max_length=255)
    description: str = Field(default="", max_length=2000)
    billing_cycle: str = Field(max_length=10)
    billing_cycle_interval: int = 1
    trial_period_days: int = 0
    pricing_policies: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    status: str = Field(default="active", max_length=10)
    created_at: int = Field(default=0, sa_type=sa.BigInteger)
    updated_at: int = Field(default=0, sa_type=sa.BigInteger)
    version: int = Field(default=1, sa_type=sa.BigInteger)
