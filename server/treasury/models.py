"""Ledger rows. Amounts are exact Decimals in the asset's units; rows are only ever inserted."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText


class Account(StrEnum):
    """Where a merchant's money is, per asset. `inflow` and `outflow` are the world outside: money received is a
    negative inflow, money gone (refunds, payouts, network fees) a positive outflow, so every posting sums to zero."""

    INFLOW = "inflow"
    PENDING = "pending"  # seen on chain, not yet confirmed and approved
    AVAILABLE = "available"  # confirmed and approved, net of the processing fee
    LOCKED = "locked"  # promised to a refund or payout not yet sent
    FROZEN = "frozen"  # rejected by AML
    FEES = "fees"  # paygate's processing fee
    OUTFLOW = "outflow"


class CauseType(StrEnum):
    TRANSFER = "transfer"  # an incoming chain transfer (ChainTransfer tx_…)
    REFUND = "refund"  # rf_…
    SWEEP = "sweep"
    PAYOUT = "payout"


class LedgerEntry(SQLModel, table=True):
    """One leg of a posting: every posting (`posting_id`) is two or more legs whose amounts sum to zero."""

    __tablename__ = "ledger_entries"
    __table_args__ = (
        sa.Index("ix_ledger_scope", "merchant_id", "livemode", "asset_id", "account"),
        sa.Index("ix_ledger_cause", "cause_type", "cause_id"),
        sa.Index("ix_ledger_holder", "network", "address", "asset_id"),
    )

    id: str = Field(primary_key=True, max_length=40)  # le_…
    posting_id: str = Field(max_length=40, index=True)  # lp_…
    merchant_id: str = Field(max_length=40)
    livemode: bool
    asset_id: str = Field(max_length=60)
    account: str = Field(max_length=12)  # Account
    network: str = Field(default="", max_length=40)
    # Where the money physically is: a deposit address, the treasury address, or "" (the world outside).
    address: str = Field(default="", max_length=80)
    amount: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    cause_type: str = Field(max_length=12)  # CauseType
    cause_id: str = Field(max_length=40)
    created_at: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
