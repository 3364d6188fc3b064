"""The treasury's outgoing transactions beside refunds and sweeps. Amounts are exact Decimals in the asset's units."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server.db.types import DecimalText


class OutgoingStatus(StrEnum):
    PENDING = "pending"  # signed and recorded; sent, or about to be
    CONFIRMED = "confirmed"
    FAILED = "failed"  # its nonce went to another transaction, to our cancel, or it reverted



class TreasuryTransfer(SQLModel, table=True):
    """A payout from the merchant's treasury that is neither a refund nor a sweep: a verification micro-deposit
    (`owner_kind` "verification", `owner_id` the address ma_…) today, treasury payouts next."""

    __tablename__ = "treasury_transfers"
    __table_args__ = (sa.Index("ix_treasury_transfers_open", "status", "network", "source_address"),
                      sa.Index("ix_treasury_transfers_owner", "owner_kind", "owner_id"))

    id: str = Field(primary_key=True, max_length=40)  # ttx_…
    owner_kind: str = Field(max_length=16)
    owner_id: str = Field(max_length=40)
    merchant_id: str = Field(max_length=40)
    livemode: bool
    network: str = Field(max_length=40)
    asset_id: str = Field(max_length=60)
    source_address: str = Field(max_length=80)
    destination_address: str = Field(max_length=80)
    nonce: int = Field(sa_type=sa.BigInteger)
    tx_hash: str = Field(max_length=80)
    raw: str = Field(sa_type=sa.Text)
    amount_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    fee_wei: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    status: str = Field(max_length=12)  # OutgoingStatus
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
