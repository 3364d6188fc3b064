"""Refund rows. Amounts are exact: Decimal in the asset's units, smallest-unit integers as decimal text."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType


class Refund(SQLModel, table=True):
    __tablename__ = "refunds"
    __table_args__ = (
        sa.Index("ix_refunds_scope_newest", "merchant_id", "livemode", "sort_key"),
        sa.Index("ix_refunds_status", "status"),  # the sender's claim of Pending and Processing refunds
    )

    id: str = Field(primary_key=True, max_length=40)  # rf_…
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    payment_intent_id: str = Field(foreign_key="payment_intents.id", max_length=40, index=True)
    charge_id: str = Field(default="", max_length=40)
    asset_id: str = Field(max_length=60)
    network: str = Field(max_length=40)
    decimals: int
    amount: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    # Known once the transaction is signed (native coin only; see payout_job.py). Zero until then.
    network_fee: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    refund_address: str = Field(max_length=80)
    reason: str = Field(default="", max_length=40)
    description: str = Field(default="", max_length=1000)
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    exchange_rate: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    # Returns the intent's unexpected funds (DESIGN §14: an asset other than its charge's), not part of the payment:
    # it never moves the intent's amounts, its charge's refunds or the customer's totals.
    unexpected_funds: bool = Field(default=False, sa_column=Column(sa.Boolean, nullable=False,
                                                                   server_default=sa.false()))
    status: str = Field(max_length=20)
    failure_reason: str = Field(default="", max_length=60)
    # Four eyes (DESIGN §15): a refund to an address other than the payer's is money leaving for an address the
    # merchant names, as a payout is, so it waits Pending for the merchant's payout approvers when it has any
    # (treasury/approvals.py). `not_required`, `pending`, `approved`, `rejected`, `expired`
    # (treasury/approval_expiry.py).
    approval_status: str = Field(default="not_required", max_length=16,
                                 sa_column_kwargs={"server_default": "not_required"})
    approvals_required: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_by_key: str = Field(default="", max_length=40, sa_column_kwargs={"server_default": ""})
    # A card refund's id at the provider (re_…); empty for a chain refund.
    provider_refund_id: str = Field(default="", max_length=100)
    created: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)


class RefundTransaction(SQLModel, table=True):
    """The signed payout of a refund. Written with its raw bytes and hash BEFORE it is broadcast, so a sender that
    dies in between sends the very same transaction again on restart instead of a second one. The rail keeps every
    transaction it signed for it (`server/rails/evm/models.py`: replacements and cancels with the same nonce)."""

    __tablename__ = "refund_transactions"
    __table_args__ = (sa.UniqueConstraint("network", "source_address", "nonce", name="uq_refund_tx_nonce"),)

    id: str = Field(primary_key=True, max_length=40)  # rtx_…
    refund_id: str = Field(foreign_key="refunds.id", max_length=40, index=True)
    network: str = Field(max_length=40)
    source_address: str = Field(max_length=80)  # the treasury, lower-case
    destination_address: str = Field(max_length=80)
    nonce: int = Field(sa_type=sa.BigInteger)
    tx_hash: str = Field(max_length=80, index=True)
    raw: str = Field(sa_type=sa.Text)  # 0x… signed transaction
    amount_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # smallest units sent
    decimals: int
    asset_id: str = Field(max_length=60)
    status: str = Field(max_length=12)  # states.TransactionStatus
    fee_wei: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))  # gas paid, once mined
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
