"""Payout address rows (DESIGN §15, §16)."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText
from server.treasury.addresses import states as address_states

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
