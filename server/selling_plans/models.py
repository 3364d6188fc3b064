"""A selling-plan group: plans (rows of `selling_plans`, server/products/models.py) and the products they apply to.

A product's `selling_plans` are the plans of the groups naming it (`selling_plan_group_products`): one set of rows,
read through the products API and through the SDK's groups. Plans a product is given inline (the spec's product
shape) live in that product's own group (`owner_product_id`), made on first use.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import JSONType


class SellingPlanGroup(SQLModel, table=True):
    __tablename__ = "selling_plan_groups"
    __table_args__ = (sa.Index("ix_selling_plan_groups_scope_newest", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    name: str = Field(max_length=255)
    description: str = Field(default="", max_length=2000)
    options: list[str] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    status: str = Field(default="active", max_length=10)
    # The product whose inline `selling_plans` this group holds; None for a group made through the groups API.
    owner_product_id: str | None = Field(default=None, index=True, max_length=40)
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)


class SellingPlanGroupProduct(SQLModel, table=True):
    __tablename__ = "selling_plan_group_products"

    group_id: str = Field(foreign_key="selling_plan_groups.id", primary_key=True, max_length=40)
    product_id: str = Field(foreign_key="products.id", primary_key=True, index=True, max_length=40)
    position: int = 0
