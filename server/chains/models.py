from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import sqlalchemy as sa
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Column, Field, SQLModel

from server.db.types import DecimalText, JSONType


class WatchedAddress(SQLModel, table=True):
    """An address the watcher looks for transfers to, on one network, until `watch_until`."""

    __tablename__ = "watched_addresses"
    __table_args__ = (sa.Index("ix_watched_network_until", "network", "watch_until"),)

    network: str = Field(primary_key=True, max_length=40)
    address: str = Field(primary_key=True, max_length=80)  # lower-case 0x… for EVM
    owner_id: str = Field(max_length=40, index=True)  # the charge (or permanent deposit) it belongs to
    merchant_id: str = Field(max_length=40)
    livemode: bool
    from_block: int = Field(default=0, sa_type=sa.BigInteger)  # no transfer before this block counts
    watch_until: int = Field(sa_type=sa.BigInteger)  # Unix seconds; late funds until then are still recorded


class TransferStatus(StrEnum):
    """A ChainTransfer's status; `server/watcher/recording.py` moves it (`confirmations`: blocks on top of its own)."""

    # in a block, nothing on top yet; or unmined, waiting in the node's mempool (block_hash "", a rail with a
    # mempool reader: server/watcher/mempool.py), never counted as paid
    SUBMITTED = "submitted"
    CONFIRMING = "confirming"  # 1 ≤ confirmations < the network's threshold
    CONFIRMED = "confirmed"  # confirmations ≥ threshold; AML screening starts
    REVERTED = "reverted"  # its block left the canonical chain, or it left the mempool unmined (replaced, double-spent)


# Seen and not yet at the confirmation threshold: the watcher keeps counting their confirmations.
UNCONFIRMED = frozenset({TransferStatus.SUBMITTED, TransferStatus.CONFIRMING})

# Native coin a contract call sent to a watched address (an internal transfer, DESIGN §16), found by the address's
# balance (server/watcher/internal.py): the n-th such transfer of a transaction is at INTERNAL_LOG_INDEX - n, far
# below a native transfer's -1 and the indexes re-organisations park rows at (-2, -3, …). Never counted as paid.
INTERNAL_LOG_INDEX = -1_000_000


def by_contract_call(t: ChainTransfer) -> bool:
    """Whether the row is native coin that reached its address inside a contract call, not by a transaction to it."""
    return t.log_index <= INTERNAL_LOG_INDEX


class ChainTransfer(SQLModel, table=True):
    """One incoming transfer to a watched address: a native transfer (log_index -1), an ERC-20 Transfer log, or native
    coin sent by a contract call (log_index ≤ INTERNAL_LOG_INDEX; tx_hash `balance:…` when no trace named it).

    One row per transfer, across re-organisations: a transaction mined again in another block keeps its rows, each
    moved to its new block and log index (server/watcher/same_transfer.py). `created_at` is when the watcher first
    saw the transfer, and stays."""

    __tablename__ = "chain_transfers"
    __table_args__ = (sa.UniqueConstraint("network", "tx_hash", "log_index", name="uq_chain_transfers_tx"),)

    id: str = Field(primary_key=True, max_length=40)  # tx_…
    network: str = Field(max_length=40)
    tx_hash: str = Field(max_length=80)
    log_index: int = -1
    block_number: int = Field(sa_type=sa.BigInteger)
    block_hash: str = Field(max_length=80)
    # The block's own timestamp (Unix seconds, as its miner or proposer set it); None for rows recorded before
    # migration 0025, or by a rail that does not tell block times. The quote rule reads it through
    # server/payment_intents/totals.arrival_time.
    block_timestamp: int | None = Field(default=None, sa_type=sa.BigInteger, nullable=True)
    from_address: str = Field(max_length=80)
    # Every address the paying transaction spent from, where it has many (a UTXO transaction's inputs; migration
    # 0040): AML screening reads them all. None where the rail has one sender (EVM), `from_address` alone.
    from_addresses: list[str] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    to_address: str = Field(max_length=80, index=True)
    asset_id: str = Field(max_length=60)
    amount_base: Decimal = Field(sa_column=Column(DecimalText, nullable=False))  # smallest units, exact
    decimals: int
    owner_id: str = Field(max_length=40, index=True)
    status: str = Field(max_length=12)  # TransferStatus
    confirmations: int = 0
    aml_status: str = Field(default="", max_length=12)  # server.aml.AmlStatus: '' (checking) | approved | rejected
    aml_info: str = Field(default="", max_length=500)
    created_at: int = Field(sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)

    def stamp(self, now: int) -> None:
        """`updated_at = now`, written by the next flush even if it held `now` already. The ORM leaves an unchanged
        column out of a row's UPDATE, and sends rows of different column sets as separate statements: a pass that
        changes transfers recorded on both sides of a second would take two or three UPDATEs instead of one
        (tests/e2e/chain/test_batching.py)."""
        self.updated_at = now
        flag_modified(self, "updated_at")


class NetworkCursor(SQLModel, table=True):
    """How far a network has been scanned, and which watcher holds it (a lease, so two never scan one network)."""

    __tablename__ = "network_cursors"

    network: str = Field(primary_key=True, max_length=40)
    last_block: int = Field(default=-1, sa_type=sa.BigInteger)
    last_block_hash: str = Field(default="", max_length=80)
    holder: str = Field(default="", max_length=80)
    lease_until: int = Field(default=0, sa_type=sa.BigInteger)
