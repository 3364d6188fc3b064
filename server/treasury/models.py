"""Ledger rows. Amounts are exact Decimals in the asset's units; rows are only ever inserted."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText
from server.treasury import address_states, sweep_states


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


class OutgoingStatus(StrEnum):
    PENDING = "pending"  # signed and recorded; sent, or about to be
    CONFIRMED = "confirmed"
    FAILED = "failed"  # its nonce went to another transaction, to our cancel, or it reverted


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


# Defined with its state machine (address_states.py), as is VerificationStatus below.
AddressStatus = address_states.Status


class ProofMethod(StrEnum):
    """How control of a payout address was proven (DESIGN §16)."""

    SIGNATURE = "signature"  # the address's key signed paygate's message
    MICRO_DEPOSIT = "micro_deposit"  # the amount sent was given back: public on chain, so an approver must agree


VerificationStatus = address_states.VerificationStatus


class MerchantAddress(SQLModel, table=True):
    """A payout address of the merchant, proven by its key's signature (or a micro-deposit and an approver) before
    any payout may go to it; in live mode an approver approves it too (server/treasury/addresses.py)."""

    __tablename__ = "merchant_addresses"
    __table_args__ = (
        sa.Index("ix_merchant_addresses_scope_newest", "merchant_id", "livemode", "sort_key"),
        sa.Index("ix_merchant_addresses_verification", "verification_status"),
        # The same address of the merchant: a duplicate, or one deleted within 24 h (addresses.create).
        sa.Index("ix_merchant_addresses_address", "merchant_id", "livemode", "network", "address"),
    )

    id: str = Field(primary_key=True, max_length=40)  # ma_…
    merchant_id: str = Field(max_length=40)
    livemode: bool
    network: str = Field(max_length=40)
    address: str = Field(max_length=80)  # lower-case
    alias: str = Field(default="", max_length=200)
    status: str = Field(max_length=24)  # AddressStatus
    verification_id: str = Field(max_length=40)  # mav_…
    verification_status: str = Field(max_length=12)  # VerificationStatus
    verification_asset_id: str = Field(max_length=60)
    # The micro-amount sent, in the native coin: the secret the merchant proves control with (never shown).
    verification_amount: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    tried_times: int = 0
    verified_at: int = Field(default=0, sa_type=sa.BigInteger)
    # The single-use nonce of the message the address's key signs; replaced after each failed try, "" once used.
    verification_nonce: str = Field(default="", max_length=64, sa_column_kwargs={"server_default": ""})
    proof_method: str = Field(default="", max_length=16, sa_column_kwargs={"server_default": ""})  # ProofMethod
    # Four eyes on the address (approvals.py, resource type `payout_address`): live addresses, and micro-deposits.
    approval_status: str = Field(default="not_required", max_length=16,
                                 sa_column_kwargs={"server_default": "not_required"})  # ApprovalStatus
    approvals_required: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_by_key: str = Field(default="", max_length=40, sa_column_kwargs={"server_default": ""})
    # No payout before this (unix seconds; 0: none): an address added again within 24 h of its deletion waits.
    usable_from: int = Field(default=0, sa_type=sa.BigInteger, sa_column_kwargs={"server_default": "0"})
    aml_status: str = Field(max_length=12)
    aml_info: str = Field(default="", max_length=500)
    deleted_at: int = Field(default=0, sa_type=sa.BigInteger)  # 0: not deleted
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)


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
