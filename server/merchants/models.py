from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server.db.types import DecimalText


class Merchant(SQLModel, table=True):
    __tablename__ = "merchants"

    id: str = Field(primary_key=True, max_length=40)
    name: str = Field(max_length=200)
    created: int = Field(sa_type=sa.BigInteger)
    # Four eyes (DESIGN §15): a payout taking the day's unapproved payouts above the threshold (in the settlement
    # currency, at current rates: server/treasury/approval_trail.py) needs this many approver keys' approvals; 0
    # approvals: none needed.
    payout_approvals_required: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    payout_approval_threshold: Decimal = Field(
        default=Decimal(0), sa_column=Column(DecimalText, nullable=False, server_default="0"))
    # The fiat the balance's totals are shown in (DESIGN §15: "the merchant's settlement fiat, USD by default").
    settlement_currency: str = Field(default="USD", max_length=10, sa_column_kwargs={"server_default": "USD"})


ROLE_APPROVER = "approver"


class ApiKey(SQLModel, table=True):
    """A secret key is stored only as its SHA-256 digest (`lookup`); a public key as itself."""

    __tablename__ = "api_keys"

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", index=True, max_length=40)
    livemode: bool
    kind: str = Field(max_length=10)  # "secret" or "public"
    lookup: str = Field(unique=True, max_length=100)
    hint: str = Field(max_length=40)
    # "" for a merchant's own keys; "approver": a secret key that may only use the approval API (DESIGN §15).
    role: str = Field(default="", max_length=20, sa_column_kwargs={"server_default": ""})
    created: int = Field(sa_type=sa.BigInteger)
    revoked_at: int | None = Field(default=None, sa_type=sa.BigInteger)
