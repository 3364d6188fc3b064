"""Payroll rows (DESIGN §17). A payroll is a batch of payouts: each item, once the payroll is confirmed, is one
ordinary payout (`payouts.payroll_id`), and what moves (status, transactions, approval) is read from those payouts.
Amounts are exact Decimals in the asset's units."""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText


class Payroll(SQLModel, table=True):
    __tablename__ = "payrolls"
    __table_args__ = (sa.Index("ix_payrolls_scope_newest", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)  # payroll_…
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    external_id: str = Field(default="", max_length=255)
    asset_id: str = Field(max_length=60)  # every item pays out this one asset (the SDK's `currency`)
    network: str = Field(max_length=40)
    total_amount: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    item_count: int
    created_by_key: str = Field(default="", max_length=40)
    # Set once, by the confirmation that made the items' payouts (0: not confirmed yet).
    confirmed_at: int = Field(default=0, sa_type=sa.BigInteger)
    confirmed_by_key: str = Field(default="", max_length=40)
    # Four eyes, decided once on the total when confirmed.
    approvals_required: int = Field(default=0)
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)


class PayrollItem(SQLModel, table=True):
    __tablename__ = "payroll_items"
    __table_args__ = (sa.Index("ix_payroll_items_payroll", "payroll_id", "position"),)

    id: str = Field(primary_key=True, max_length=40)  # payroll_item_…
    payroll_id: str = Field(foreign_key="payrolls.id", max_length=40)
    position: int  # its index in the request's items
    external_id: str = Field(default="", max_length=255)
    name: str = Field(default="", max_length=255)
    email: str = Field(default="", max_length=254)
    phone: str = Field(default="", max_length=32)
    amount: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    coin: str = Field(max_length=20)
    merchant_address_id: str = Field(max_length=40)
    address: str = Field(max_length=80)  # normalized, as the payout address holds it
    payment_method: str = Field(default="normal", max_length=20)
    payout_id: str | None = Field(default=None, max_length=40, unique=True)
    created_at: int = Field(sa_type=sa.BigInteger)
