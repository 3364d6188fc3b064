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
    # Known once the transaction is signed (native coin only; see sender.py). Zero until then.
    network_fee: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    refund_address: str = Field(max_length=80)
    reason: str = Field(default="", max_length=40)
    description: str = Field(default="", max_length=1000)
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    exchange_rate: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    status: str = Field(max_length=20)
    failure_reason: str = Field(default="", max_length=60)
    created: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)


class RefundTransaction(SQLModel, table=True):
    """The signed payout of a refund. Written with its raw bytes and hash BEFORE it is broadcast, so a sender that
    dies in between sends the very same transaction again on restart instead of a second one."""

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
    status: str = Field(max_length=12)  # pending | confirmed | failed
    fee_wei: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))  # gas paid, once mined
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)


class TreasuryNonce(SQLModel, table=True):
    """The next nonce of a treasury address on a network, reserved in the database so two senders (or one sender
    before and after a crash) never sign two different transactions with the same nonce."""

    __tablename__ = "treasury_nonces"

    network: str = Field(primary_key=True, max_length=40)
    address: str = Field(primary_key=True, max_length=80)
    next_nonce: int = Field(default=0, sa_type=sa.BigInteger)


class SignedTransaction(SQLModel, table=True):
    """Every transaction paygate signed from a treasury, kept with its bytes so that whichever of them is mined
    counts: a refund's first transaction and its fee-bumped replacements (same nonce), a cancel of a refund that
    cannot be sent (a 0-value transfer to the treasury itself, same nonce), and fillers of nonce gaps (no refund)."""

    __tablename__ = "treasury_signed_transactions"
    __table_args__ = (sa.Index("ix_treasury_signed_nonce", "network", "source_address", "nonce"),)

    id: str = Field(primary_key=True, max_length=60)  # stx_…
    network: str = Field(max_length=40)
    source_address: str = Field(max_length=80)  # the treasury, lower-case
    nonce: int = Field(sa_type=sa.BigInteger)
    refund_transaction_id: str | None = Field(default=None, foreign_key="refund_transactions.id", max_length=40,
                                              index=True)
    kind: str = Field(max_length=12)  # refund | cancel | filler
    tx_hash: str = Field(max_length=80, unique=True)
    raw: str = Field(sa_type=sa.Text)  # 0x… signed transaction
    value_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # what it pays the customer
    created_at: int = Field(sa_type=sa.BigInteger)
