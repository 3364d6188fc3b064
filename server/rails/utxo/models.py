"""What the UTXO rail keeps of the spends it signs: every signed transaction with its bytes (stored before any
broadcast, so a crash between signing and sending loses nothing and sends nothing twice), the outputs each one spends
(reserved in the database, so two payouts never select one output), and a row per source address that orders the
reservations of concurrent signers and numbers their spends."""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server.db.types import DecimalText


class UtxoSource(SQLModel, table=True):
    """One row per (network, source address), locked while a payout from it selects and reserves its inputs. A spend
    has no nonce; its number here is the payout's `sequence`, which owners keep unique per source as they do nonces."""

    __tablename__ = "utxo_sources"

    network: str = Field(primary_key=True, max_length=40)
    address: str = Field(primary_key=True, max_length=100)
    next_sequence: int = Field(default=0, sa_type=sa.BigInteger)


class UtxoSpend(SQLModel, table=True):
    """A transaction paygate signed on a UTXO network for a payout (a refund transaction rtx_…)."""

    __tablename__ = "utxo_spends"

    id: str = Field(primary_key=True, max_length=60)  # uspd_…
    network: str = Field(max_length=40)
    source_address: str = Field(max_length=100)  # stored form (bech32, lower-case)
    payout_id: str = Field(max_length=60, index=True)
    txid: str = Field(max_length=64, index=True)  # one per part where a consolidation pays several payouts
    raw: str = Field(sa_type=sa.Text)  # the signed transaction, hex
    value_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # what it pays the destination
    fee_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # its share of the network fee
    created_at: int = Field(sa_type=sa.BigInteger)


class UtxoReservedInput(SQLModel, table=True):
    """An output a signed spend uses: never selected by another payout while that spend may still be mined. The
    primary key is the outpoint itself, so even a signer that skipped the lock could not reserve it twice."""

    __tablename__ = "utxo_reserved_inputs"

    network: str = Field(primary_key=True, max_length=40)
    txid: str = Field(primary_key=True, max_length=64)
    vout: int = Field(primary_key=True, sa_type=sa.BigInteger)
    spend_id: str = Field(max_length=60, index=True)
