"""Opening entries for money that moved before the ledger existed (migration 0016): `paygate treasury
backfill-ledger`. An upgraded database holds confirmed, approved payments on deposit addresses and mined refunds
that no posting ever saw, so its balance would be wrong; this posts them, and the gas the treasury paid apart for
refunds (a token refund's, a mined cancel's: the refund transaction's `fee_wei`), under the gas rule of
`postings.pay_out_of`, through the ledger's normal path
(`listeners`' positions and `postings.settle_cause`), one cause per transaction with its row locked.

Only causes with no ledger entry at all are touched, so a second run posts nothing, and a cause the listeners already
follow is left to them. Causes still on their way (unconfirmed, awaiting AML, refunds not yet mined) need no opening
entry: the listener posts their whole position at their next change. A payment's processing fee is the configured
`tx_fee_percent`, as the listener takes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select

from server.aml import AmlStatus
from server.chains.models import ChainTransfer, TransferStatus, WatchedAddress
from server.refunds.models import Refund, RefundTransaction
from server.refunds.states import Status as RefundStatus
from server.refunds.states import TransactionStatus as RefundTxStatus
from server.treasury.env import TreasuryEnv
from server.treasury.ledger import postings
from server.treasury.ledger.listeners import OUTSIDE, refund_position, transfer_position, treasury_of
from server.treasury.ledger.models import Account, CauseType, LedgerEntry
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.sweeps.service import native_of

log = logging.getLogger("paygate.treasury.backfill")


@dataclass(frozen=True)
class Backfilled:
    """How many causes got their opening entries."""

    transfers: int = 0
    refunds: int = 0
    network_fees: int = 0  # refund transactions whose gas the treasury paid apart (a token's, a mined cancel's)


def _unposted(cause_type: CauseType, cause_id: Any) -> sa.ColumnElement[bool]:
    return ~sa.exists().where(col(LedgerEntry.cause_type) == cause_type, col(LedgerEntry.cause_id) == cause_id)


async def _transfers(rt: TreasuryEnv) -> list[str]:
    async with rt.db.read() as session:
        rows = await session.exec(
            select(ChainTransfer.id)
            .join(WatchedAddress, sa.and_(col(WatchedAddress.network) == col(ChainTransfer.network),
                                          col(WatchedAddress.address) == col(ChainTransfer.to_address)))
            .where(ChainTransfer.status == TransferStatus.CONFIRMED, ChainTransfer.aml_status == AmlStatus.APPROVED,
                   _unposted(CauseType.TRANSFER, col(ChainTransfer.id)))
            .order_by(col(ChainTransfer.id)))
        return list(rows)


async def _refunds(rt: TreasuryEnv) -> list[str]:
    async with rt.db.read() as session:
        rows = await session.exec(
            select(Refund.id).where(Refund.status == RefundStatus.SUCCESS, Refund.network != "",
                                    _unposted(CauseType.REFUND, col(Refund.id)))
            .order_by(col(Refund.id)))
        return list(rows)


async def _refund_transactions(rt: TreasuryEnv) -> list[str]:
    """Mined refund transactions whose gas the treasury paid apart from the refund's amount: a token's (confirmed in
    another asset than the network's native coin) and any failed one that cost gas (our cancel or a revert mined).
    A native coin's confirmed refund paid its gas out of its own amount (in the refund's outflow already)."""
    natives = [a.id for a in rt.catalogue.assets if a.network and not a.contract_address and not a.is_fiat]
    async with rt.db.read() as session:
        rows = await session.exec(
            select(RefundTransaction.id).where(
                sa.or_(col(RefundTransaction.status) == RefundTxStatus.FAILED,
                       sa.and_(col(RefundTransaction.status) == RefundTxStatus.CONFIRMED,
                               col(RefundTransaction.asset_id).not_in(natives))),
                _unposted(CauseType.NETWORK_FEE, col(RefundTransaction.id)))
            .order_by(col(RefundTransaction.id)))
        return list(rows)


async def _network_fee(rt: TreasuryEnv, tx_id: str) -> bool:
    async with rt.db.transaction() as session:
        tx = await session.get(RefundTransaction, tx_id, with_for_update=True, populate_existing=True)
        if tx is None or not tx.fee_wei or await postings.held(session, CauseType.NETWORK_FEE, tx_id):
            return False
        refund = await session.get(Refund, tx.refund_id)
        native = native_of(rt.catalogue, tx.network)
        if refund is None or native is None:
            return False
        scope = Scope(refund.merchant_id, refund.livemode, native.id, tx.network)
        posted = await postings.network_fee(session, scope, CauseType.NETWORK_FEE, tx.id, tx.source_address,
                                          tx.fee_wei.scaleb(-native.decimals))
        return posted is not None


async def _transfer(rt: TreasuryEnv, transfer_id: str) -> bool:
    async with rt.db.transaction() as session:
        transfer = await session.get(ChainTransfer, transfer_id, with_for_update=True, populate_existing=True)
        if transfer is None or await postings.held(session, CauseType.TRANSFER, transfer_id) or \
                await rt.rails.ours(session, transfer):
            return False
        watched = await session.get(WatchedAddress, (transfer.network, transfer.to_address))
        if watched is None:
            return False
        scope = Scope(watched.merchant_id, watched.livemode, transfer.asset_id, transfer.network)
        posted = await postings.settle_cause(session, scope, CauseType.TRANSFER, transfer.id,
                                           await transfer_position(session, transfer, rt.settings.tx_fee_percent),
                                           OUTSIDE)
        return posted is not None


async def _refund(rt: TreasuryEnv, refund_id: str) -> bool:
    async with rt.db.transaction() as session:
        refund = await session.get(Refund, refund_id, with_for_update=True, populate_existing=True)
        if refund is None or await postings.held(session, CauseType.REFUND, refund_id):
            return False
        treasury = await treasury_of(rt, session, refund.network, refund.merchant_id, refund.livemode)
        scope = Scope(refund.merchant_id, refund.livemode, refund.asset_id, refund.network)
        posted = await postings.settle_cause(session, scope, CauseType.REFUND, refund.id,
                                           refund_position(refund, treasury), Holder(Account.AVAILABLE, treasury))
        return posted is not None


async def backfill(rt: TreasuryEnv) -> Backfilled:
    """Posts the opening entries of every cause that needs one; what it posted, by kind."""
    transfers = sum([await _transfer(rt, t) for t in await _transfers(rt)])
    refunds = sum([await _refund(rt, r) for r in await _refunds(rt)])
    fees = sum([await _network_fee(rt, t) for t in await _refund_transactions(rt)])
    if transfers or refunds or fees:
        log.info("ledger backfilled", extra={"transfers": transfers, "refunds": refunds, "network_fees": fees})
    return Backfilled(transfers=transfers, refunds=refunds, network_fees=fees)
