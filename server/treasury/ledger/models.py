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
    # Coin an address of the merchant's spent (gas, a top-up, a micro-deposit) beyond the merchant's available funds
    # there: funds sent to it by hand and never recorded. Never shown in the balance; spent only as far as such coin
    # is there (server/treasury/gas.py), so never paygate's fees; a recorded funding (`paygate treasury
    # record-funding`) pays it back first (`ledger.pay_out_of`, `ledger.funded`). Above zero only at a deposit
    # address holding what is left of a gas top-up that such coin paid for.
    GAS = "gas"
    OUTFLOW = "outflow"


class CauseType(StrEnum):
    TRANSFER = "transfer"  # an incoming chain transfer (ChainTransfer tx_…)
    REFUND = "refund"  # rf_…
    SWEEP = "sweep"
    VERIFICATION = "verification"  # a payout address's micro-deposit
    PAYOUT = "payout"
    # What a treasury transaction costs in the native coin, cause_id the transaction: gas the treasury paid for a
    # refund (a token's, or a cancel's: rtx_…), and the cost set aside before signing and paid with the receipt of a
    # sweep's top-up (swtx_…), a payout or a micro-deposit (ttx_…) (server/treasury/gas.py). Apart from REFUND and
    # PAYOUT so that their own settlement never sees it.
    NETWORK_FEE = "network_fee"
    # Funds the merchant sent to its own treasury by hand (e.g. gas for token sweeps and refunds), recorded by the
    # operator with `paygate treasury record-funding`: cause_id is "<tx hash>:<log index>" (-1 for native).
    FUNDING = "funding"


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


class SweepDue(SQLModel, table=True):
    """A place the sweep job should look at: the ledger credited available funds (or fees) there, or a sweep of it
    failed. Written in the transaction of its cause (`ledger.post`, `sweeps`); the job sums only these places' legs
    and deletes the rows it has dealt with, so a pass with nothing new reads no ledger rows. Several rows may name
    one place; a row is deleted only by the pass that read it, so one written meanwhile is seen next pass."""

    __tablename__ = "sweep_due"

    id: str = Field(primary_key=True, max_length=40)  # sd_…
    merchant_id: str = Field(max_length=40)
    livemode: bool
    network: str = Field(max_length=40)
    address: str = Field(max_length=80)
    asset_id: str = Field(max_length=60)
    created_at: int = Field(sa_type=sa.BigInteger)
