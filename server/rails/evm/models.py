"""What the EVM rail keeps of the transactions it signs from a source address (a merchant's treasury): the next nonce,
and every signed transaction with its bytes. Shared by every owner of payouts from that address (refunds today,
sweeps and treasury payouts next), so that none of them signs two transactions with one nonce."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server.db.types import DecimalText


class TreasuryNonce(SQLModel, table=True):
    """The next nonce of a source address on a network, reserved in the database so two senders (or one sender
    before and after a crash) never sign two different transactions with the same nonce."""

    __tablename__ = "treasury_nonces"

    network: str = Field(primary_key=True, max_length=40)
    address: str = Field(primary_key=True, max_length=80)
    next_nonce: int = Field(default=0, sa_type=sa.BigInteger)


class SignedKind(StrEnum):
    PAYOUT = "refund"  # pays the destination (stored as "refund": every payout was a refund's when it was named)
    CANCEL = "cancel"  # a 0-value transfer to the source itself with a stuck payout's nonce
    FILLER = "filler"  # a 0-value transfer to the source itself with a nonce no payout waits on


class SignedTransaction(SQLModel, table=True):
    """Every transaction paygate signed from a source address, kept with its bytes so that whichever of them is mined
    counts: a payout's first transaction and its fee-bumped replacements (same nonce), a cancel of a payout that
    cannot be sent (same nonce), and fillers of nonce gaps (no payout)."""

    __tablename__ = "treasury_signed_transactions"
    __table_args__ = (sa.Index("ix_treasury_signed_nonce", "network", "source_address", "nonce"),)

    id: str = Field(primary_key=True, max_length=60)  # stx_…
    network: str = Field(max_length=40)
    source_address: str = Field(max_length=80)  # lower-case
    nonce: int = Field(sa_type=sa.BigInteger)
    # The payout it belongs to (a refund transaction rtx_…, a sweep transaction swtx_…), None for a filler. The
    # column keeps its first owner's name; its foreign key to refund_transactions went with the second owner (0017).
    payout_id: str | None = Field(default=None, sa_column=Column(
        "refund_transaction_id", sa.String(40), index=True, nullable=True))
    kind: str = Field(max_length=12)  # SignedKind
    tx_hash: str = Field(max_length=80, unique=True)
    raw: str = Field(sa_type=sa.Text)  # 0x… signed transaction
    value_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # what it pays the destination
    created_at: int = Field(sa_type=sa.BigInteger)
