from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType


class Customer(SQLModel, table=True):
    __tablename__ = "customers"
    __table_args__ = (sa.Index("ix_customers_scope_newest", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    name: str = Field(default="", max_length=255)
    email: str = Field(default="", max_length=255, index=True)
    phone: str = Field(default="", max_length=40)
    uuid: str = Field(default="", max_length=255)
    description: str = Field(default="", max_length=1000)
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    addresses: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    currency: str = Field(default="", max_length=20)
    # Minor units of `currency` (integers, DESIGN §12), kept by server/customers/totals.py.
    total_payment: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    total_refund: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    provider_a_customer_id: str = Field(default="", max_length=100)
    provider_b_customer_id: str = Field(default="", max_length=100)
    created: int = Field(sa_type=sa.BigInteger)
    # Orders lists newest first, finer than the one-second `created`.
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)
    deleted_at: int | None = Field(default=None, sa_type=sa.BigInteger)


class EphemeralToken(SQLModel, table=True):
    """Only the token's digest is stored; the token itself is shown once."""

    __tablename__ = "ephemeral_tokens"

    token_hash: str = Field(primary_key=True, max_length=64)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    idp_key: str = Field(default="", max_length=10)
    idp_subject: str = Field(default="", max_length=255)
    provider: str = Field(default="", max_length=100)
    order_id: str = Field(default="", max_length=255)
    return_url: str = Field(default="", max_length=2000)
    issued_by: str = Field(default="", max_length=255)
    allow_create: bool = True
    channel_metadata: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSONType, nullable=False))
    created: int = Field(sa_type=sa.BigInteger)
    expires_at: int = Field(sa_type=sa.BigInteger, index=True)


class AuthToken(SQLModel, table=True):
    """A customer's longer-lived login, issued on resolve with refresh_token."""

    __tablename__ = "auth_tokens"

    token_hash: str = Field(primary_key=True, max_length=64)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    customer_id: str = Field(foreign_key="customers.id", max_length=40)
    created: int = Field(sa_type=sa.BigInteger)
    expires_at: int = Field(sa_type=sa.BigInteger, index=True)


class VerificationCode(SQLModel, table=True):
    """A one-time login code sent to an email or phone; only its digest is stored."""

    __tablename__ = "verification_codes"
    # The hourly caps on codes sent count per client IP and per payment link too (DESIGN §16).
    __table_args__ = (sa.Index("ix_verification_codes_client_ip_created", "client_ip", "created"),
                      sa.Index("ix_verification_codes_link_created", "payment_link_id", "created"))

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    channel: str = Field(max_length=10)  # "email" or "phone"
    subject: str = Field(max_length=255, index=True)
    code_hash: str = Field(max_length=64)
    attempts: int = 0  # wrong guesses from every IP together (what locks it is VerificationCodeFailure's, per IP)
    consumed: bool = False
    created: int = Field(sa_type=sa.BigInteger)
    expires_at: int = Field(sa_type=sa.BigInteger, index=True)
    # Who asked for it: the rate-limit key of the client IP (server/ratelimit/client_ip.py `bucket_of`), and the link.
    client_ip: str = Field(default="", max_length=64)
    payment_link_id: str = Field(default="", max_length=40)


class VerificationCodeFailure(SQLModel, table=True):
    """One wrong guess at a code from one client IP. Failures count per (address, client IP), so a stranger's
    guesses lock the code for the stranger only, never for its owner (DESIGN §16)."""

    __tablename__ = "verification_code_failures"
    __table_args__ = (sa.Index("ix_verification_code_failures_code_ip", "code_id", "client_ip"),)

    id: str = Field(primary_key=True, max_length=40)
    code_id: str = Field(max_length=40)
    client_ip: str = Field(max_length=64)
    created: int = Field(sa_type=sa.BigInteger)
    expires_at: int = Field(sa_type=sa.BigInteger, index=True)
