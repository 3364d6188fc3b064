from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType


class Invoice(SQLModel, table=True):
    __tablename__ = "invoices"
    __table_args__ = (
        sa.Index("ix_invoices_scope_newest", "merchant_id", "livemode", "sort_key"),
        # The dunning job's claim: open invoices whose next attempt has come.
        sa.Index("ix_invoices_next_attempt", "status", "next_payment_attempt"),
    )

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    subscription_id: str = Field(foreign_key="subscriptions.id", max_length=40, index=True)
    customer_id: str | None = Field(default=None, foreign_key="customers.id", max_length=40, index=True)
    payment_intent_id: str | None = Field(default=None, max_length=40, index=True)
    # At most one invoice per subscription and cycle ("<sub>:<cycle>" on create/cycle invoices, None on others),
    # whatever crashes or runs twice: the database refuses the second.
    cycle_key: str | None = Field(default=None, max_length=60, unique=True)
    amount: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    amount_paid: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    currency: str = Field(max_length=20)
    decimals: int = 2
    status: str = Field(max_length=20, index=True)
    billing_reason: str = Field(max_length=30)
    cycle_number: int = 0
    period_start: int = Field(default=0, sa_type=sa.BigInteger)
    period_end: int = Field(default=0, sa_type=sa.BigInteger)
    attempt_count: int = 0
    next_payment_attempt: int | None = Field(default=None, sa_type=sa.BigInteger)
    due_date: int | None = Field(default=None, sa_type=sa.BigInteger)
    paid_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    voided_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    sent_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    # When its payment link must be e-mailed (again): set with the invoice, leased by the mail job, cleared once sent.
    mail_due_at: int | None = Field(default=None, sa_type=sa.BigInteger, index=True)
    payment_url: str | None = Field(default=None, max_length=2000)
    lines: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    external_id: str = Field(default="", max_length=255)
    created_at: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
    version: int = Field(default=1, sa_type=sa.BigInteger)
