"""Approvals that nobody gives (scheduler job): a payout or a refund to another address that has waited for its
approvers (server/treasury/approvals/service.py) longer than `approval_expiry_seconds` is ended by paygate, as an
approver's rejection would end it: the payout is `canceled`, the refund `Failed` (`approval_expired`), its amount is
released, `approval_status` reads `expired`, and the trail ends with paygate's `expire` action. Without it, a request
nobody looked at kept the merchant's money locked for ever, and could be approved months later, to an address or at an
amount nobody remembers. 0 turns it off.

Each row is taken with `SKIP LOCKED` (PostgreSQL) and decided again under its lock, so an approver's vote and the
expiry never both decide it, and several schedulers share the work.
"""

from __future__ import annotations

import logging
from typing import TypeVar

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.refunds import service as refunds
from server.refunds.models import Refund
from server.refunds.states import Event as RefundEvent
from server.refunds.states import Status as RefundStatus
from server.treasury.approvals import states as approval_states
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus
from server.treasury.approvals.states import Event as ApprovalEvent
from server.treasury.approvals.trail import act
from server.treasury.env import TreasuryEnv
from server.treasury.payouts import service as payouts
from server.treasury.payouts import states as payout_states
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.models import PayoutStatus
from server.treasury.payouts.states import Event as PayoutEvent

log = logging.getLogger("paygate.treasury.approvals")
INTERVAL_SECONDS = 60
BATCH = 50
EXPIRED = "approval_expired"  # an expired refund's failure_reason
Waiting = TypeVar("Waiting", PayoutRow, Refund)


async def _due(session: AsyncSession, rt: TreasuryEnv, model: type[Waiting], pending: str,
               cutoff: int) -> list[Waiting]:
    """Up to a batch of `model` rows in status `pending` still waiting for approval since `cutoff` or before."""
    stmt = (select(model).where(model.status == pending, model.approval_status == ApprovalStatus.PENDING,
                                col(model.created) <= cutoff)
            .order_by(col(model.created)).limit(BATCH))
    if rt.db.is_postgres:
        stmt = stmt.with_for_update(skip_locked=True)
    return list(await session.exec(stmt.execution_options(populate_existing=True)))


async def _expire_payout(session: AsyncSession, rt: TreasuryEnv, row: PayoutRow) -> None:
    before = await payouts.snapshot(session, rt, row)
    expired = approval_states.next_status(row.approval_status, ApprovalEvent.EXPIRE)
    payout_states.move(row, PayoutEvent.EXPIRE, {"approval_status": expired}, rt.clock.now())  # canceled
    session.add(row)
    act(session, row, ApprovalActionKind.EXPIRE, "")
    await payouts.release(session, rt, row)
    await session.flush()
    await payouts.record(session, rt, row, "payout.updated", before)


async def _expire_refund(session: AsyncSession, rt: TreasuryEnv, row: Refund) -> None:
    act(session, row, ApprovalActionKind.EXPIRE, "")
    await refunds.move(session, rt, row, RefundEvent.FAILED, failure_reason=EXPIRED,
                       approval_status=approval_states.next_status(row.approval_status, ApprovalEvent.EXPIRE))


async def expire_due(rt: TreasuryEnv, now: int) -> int:
    """End one batch of payouts and one of refunds that waited for approval past the setting; the number ended."""
    ttl = rt.settings.approval_expiry_seconds
    if ttl <= 0:
        return 0
    async with rt.db.transaction() as session:
        due_payouts = await _due(session, rt, PayoutRow, PayoutStatus.PENDING, now - ttl)
        for payout in due_payouts:
            await _expire_payout(session, rt, payout)
        due_refunds = await _due(session, rt, Refund, RefundStatus.PENDING, now - ttl)
        for refund in due_refunds:
            await _expire_refund(session, rt, refund)
    for kind, rows in (("payout", due_payouts), ("refund", due_refunds)):
        for row in rows:
            log.warning("approval expired", extra={kind: row.id, "merchant": row.merchant_id, "seconds": ttl})
    return len(due_payouts) + len(due_refunds)


async def expire_approvals(rt: TreasuryEnv) -> None:
    await expire_due(rt, rt.clock.now())
