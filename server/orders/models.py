from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType


class Order(SQLModel, table=True):
    """One payment link purchase, as bought: its lines, buyer and address are copied from the intent when it
    succeeded, so later edits of the product or the customer do not rewrite what was sold."""

    __tablename__ = "orders"
    __table_args__ = (sa.Index("ix_orders_scope_newest", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    # One order per intent: the unique index makes a second making of it fail instead of doubling it.
    payment_intent_id: str = Field(foreign_key="payment_intents.id", max_length=40, unique=True)
    payment_link_id: str = Field(max_length=40)
    external_id: str = Field(default="", max_length=255)
    # {"id", "name", "email", "phone"} of the buyer; None when the purchase named no customer.
    customer: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    shipping_address: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    # The purchase's product and lines, as the intent's link snapshot priced them.
    product: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSONType, nullable=False))
    items: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    total: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    currency: str = Field(max_length=60)
    status: str = Field(max_length=20)
    payment_method: str = Field(max_length=20)
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
