"""Sweep rows: funds of one asset moved from a deposit address to the treasury, and their transactions."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText
from server.treasury.sweeps import states as sweep_states

# Defined with its state machine (sweep_states.py); named here for the column's readers.
SweepStatus = sweep_states.Status
OPEN_SWEEPS = sweep_states.OPEN


class Sweep(SQLModel, table=True):
    """Funds of one asset moved from a deposit address to the merchant's treasury (DESIGN §15)."""

    __tablename__ = "sweeps"
    __table_args__ = (
        sa.Index("ix_sweeps_scope_newest", "merchant_id", "livemode", "sort_key"),
        sa.Index("ix_sweeps_open", "status", "network", "source_address", "asset_id"),
    )

    id: str = Field(primary_key=True, max_length=40)  # sw_…
    merchant_id: str = Field(max_length=40)
    livemode: bool
    network: str = Field(max_length=40)
    asset_id: str = Field(max_length=60)
    decimals: int
    source_address: str = Field(max_length=80)  # the deposit address
    destination_address: str = Field(max_length=80)  # the treasury
    amount: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # what the ledger had there, in the asset
    # The part of `amount` that is paygate's processing fee (the ledger's `fees` account), moved along with it.
    fee_amount: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    # The sweep's network fee: in the asset for the native coin (out of the amount); in the native coin for a token
    # (the gas of the top-up and of the token transfer).
    network_fee: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    status: str = Field(max_length=12)  # SweepStatus
    failure_reason: str = Field(default="", max_length=60)
    last_error: str = Field(default="", max_length=60)  # why the last pass could not sign (retried)
    tx_hash: str = Field(default="", max_length=80)
    created: int = Field(sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)


class SweepTxKind(StrEnum):
    GAS = "gas"  # the treasury's native coin to the deposit address, to pay a token transfer's gas
    SWEEP = "sweep"  # the deposit address's funds to the treasury



class SweepTransaction(SQLModel, table=True):
    """One signed payout of a sweep (its gas top-up, or the sweep itself); signed again after a lost nonce."""

    __tablename__ = "sweep_transactions"
    __table_args__ = (sa.Index("ix_sweep_transactions_open", "status", "network", "source_address"),)

    id: str = Field(primary_key=True, max_length=40)  # swtx_…
    sweep_id: str = Field(foreign_key="sweeps.id", max_length=40, index=True)
    kind: str = Field(max_length=8)  # SweepTxKind
    network: str = Field(max_length=40)
    asset_id: str = Field(max_length=60)
    source_address: str = Field(max_length=80)
    destination_address: str = Field(max_length=80)
    nonce: int = Field(sa_type=sa.BigInteger)
    tx_hash: str = Field(max_length=80)
    raw: str = Field(sa_type=sa.Text)
    amount_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # what reaches the destination
    fee_wei: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))  # the receipt's
    status: str = Field(max_length=12)  # OutgoingStatus
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
