"""Payout rows (DESIGN §15). Amounts are exact Decimals in the asset's units."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType
from server.treasury.approvals import states as approval_states
from server.treasury.payouts import states as payout_states

# The statuses are their state machine's (payout_states.py, approval_states.py); named here for the columns' readers.
PayoutStatus = payout_states.Status
ApprovalStatus = approval_states.Status

# Its amount is locked in the ledger while in one of these.
HOLDING = (PayoutStatus.PENDING, PayoutStatus.APPROVED, PayoutStatus.IN_TRANSIT)


class Payout(SQLModel, table=True):
    __tablename__ = "payouts"
    __table_args__ = (
        sa.Index("ix_payouts_scope_newest", "merchant_id", "livemode", "sort_key"),
        sa.Index("ix_payouts_status", "status"),
    )

    id: str = Field(primary_key=True, max_length=40)  # payout_…
    merchant_id: str = Field(max_length=40)
    livemode: bool
    asset_id: str = Field(max_length=60)  # source_coin = receive_asset_id
    network: str = Field(max_length=40)
    decimals: int
    amount: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    # The network fee in the native coin: estimated when created, the receipt's once paid.
    network_fee: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    merchant_address_id: str = Field(max_length=40)
    address: str = Field(max_length=80)  # lower-case
    status: str = Field(max_length=12)
    approval_status: str = Field(max_length=12)
    failure_reason: str = Field(default="", max_length=60)
    external_id: str = Field(default="", max_length=255)
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    internal_note: str = Field(default="", max_length=1000)
    statement_descriptor: str = Field(default="", max_length=255)
    tx_hash: str = Field(default="", max_length=80)
    created: int = Field(sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    # Four eyes (DESIGN §15): approvals it needs (the merchant's setting when created) and the key that made it.
    approvals_required: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_by_key: str = Field(default="", max_length=40, sa_column_kwargs={"server_default": ""})
    # The payroll this payout is an item of (server/payrolls), None for a payout made on its own.
    payroll_id: str | None = Field(default=None, max_length=40, index=True)
