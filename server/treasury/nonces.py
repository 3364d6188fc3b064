"""The nonces every owner of payouts waits on at one source address. A treasury pays refunds, sweeps' gas top-ups
and verification micro-deposits from one nonce sequence (the rail's `treasury_nonces`): when the rail fills nonce gaps
for one owner, a nonce another owner's undecided payout waits on is no gap."""

from __future__ import annotations

from sqlmodel import select

from server.db import Database
from server.refunds.models import RefundTransaction
from server.refunds.states import TransactionStatus as RefundTxStatus
from server.treasury.models import OutgoingStatus, TreasuryTransfer
from server.treasury.sweeps.models import SweepTransaction


async def waiting(db: Database, network: str, source: str) -> set[int]:
    async with db.read() as session:
        refunds = set(await session.exec(select(RefundTransaction.nonce).where(
            RefundTransaction.network == network, RefundTransaction.source_address == source,
            RefundTransaction.status == RefundTxStatus.PENDING)))
        sweeps = set(await session.exec(select(SweepTransaction.nonce).where(
            SweepTransaction.network == network, SweepTransaction.source_address == source,
            SweepTransaction.status == OutgoingStatus.PENDING)))
        transfers = set(await session.exec(select(TreasuryTransfer.nonce).where(
            TreasuryTransfer.network == network, TreasuryTransfer.source_address == source,
            TreasuryTransfer.status == OutgoingStatus.PENDING)))
    return refunds | sweeps | transfers
