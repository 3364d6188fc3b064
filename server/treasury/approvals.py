"""Four-eyes approval of payouts (DESIGN §15).

A payout that would take what the merchant sends out unapproved within 24 hours above its `payout_approval_threshold`
(in its settlement currency, at current rates: the rule is `approval_trail.required`) needs
`payout_approvals_required` approvals from distinct approver keys (0: none); it is created `pending`, its amount
already locked, and the scheduler only sends `approved` payouts. Votes are taken with the payout row locked, so the
threshold is crossed once whatever the concurrency; one vote per key is also enforced by a unique index. One
rejection rejects it and releases its amount. Every action (create, approve, reject, cancel, sent) is appended to
the audit trail.
"""

from __future__ import annotations

from paygate.v1 import payouts_pb2 as pb
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import validate
from server.errors import Conflict, Forbidden, MissingParameter
from server.merchants.models import ROLE_APPROVER
from server.rpc.context import Caller
from server.runtime import Runtime
from server.treasury import payouts
from server.treasury.approval_trail import VOTES, act
from server.treasury.payout_models import ApprovalActionKind, ApprovalStatus, PayoutApprovalAction, PayoutStatus
from server.treasury.payout_models import Payout as PayoutRow


class ApproverKeyRequired(Forbidden):
    reason = "approver_key_required"


class AlreadyGiven(Conflict):
    reason = "approval_already_given"


class NotPending(Conflict):
    reason = "payout_not_pending_approval"


async def actions(session: AsyncSession, payout_id: str) -> list[PayoutApprovalAction]:
    return list(await session.exec(select(PayoutApprovalAction).where(PayoutApprovalAction.payout_id == payout_id)
                                   .order_by(col(PayoutApprovalAction.sort_key))))


async def detail_of(session: AsyncSession, rt: Runtime, row: PayoutRow) -> pb.ApprovalDetail:
    trail = await actions(session, row.id)
    txs = await payouts.transactions(session, [row.id])
    return pb.ApprovalDetail(
        resource_id=row.id, resource_type="payout", approval_status=row.approval_status,
        approvals_required=row.approvals_required,
        approvals_given=sum(1 for a in trail if a.action == ApprovalActionKind.APPROVE),
        actions=[pb.ApprovalAction(id=a.id, action=a.action, key_id=a.key_id, comment=a.comment, created=a.created)
                 for a in trail],
        payout=payouts.to_proto(rt.catalogue, row, txs.get(row.id, [])))


async def detail(rt: Runtime, caller: Caller, resource_id: str) -> pb.ApprovalDetail:
    if not resource_id.strip():
        raise MissingParameter("resource_id")
    async with rt.db.read() as session:
        row = await payouts.get(session, caller, resource_id)
        return await detail_of(session, rt, row)


async def pending(rt: Runtime, caller: Caller) -> list[pb.ApprovalDetail]:
    async with rt.db.read() as session:
        rows = list(await session.exec(select(PayoutRow).where(
            PayoutRow.merchant_id == caller.merchant_id, PayoutRow.livemode == caller.livemode,
            PayoutRow.status == PayoutStatus.PENDING).order_by(col(PayoutRow.sort_key)).limit(100)))
        return [await detail_of(session, rt, r) for r in rows]


async def decide(rt: Runtime, caller: Caller, payout_id: str, comment: str, *, approve: bool) -> pb.ApprovalDetail:
    comment = validate.text("comment", comment, max_length=1000)
    try:
        async with rt.db.transaction() as session:
            # Scoped first: another merchant's payout is 404 whatever key asks.
            row = await payouts.get(session, caller, payout_id, lock=True)
            if caller.role != ROLE_APPROVER:
                raise ApproverKeyRequired("only an approver key may approve or reject a payout")
            if row.status != PayoutStatus.PENDING or row.approval_status != ApprovalStatus.PENDING:
                raise NotPending(f"payout: a payout {row.status} does not wait for approval")
            if caller.key_id == row.created_by_key:
                raise ApproverKeyRequired("the key that created a payout cannot approve it")
            trail = await actions(session, row.id)
            if any(a.key_id == caller.key_id and a.action in VOTES for a in trail):
                raise AlreadyGiven("payout: this key has already voted on this payout")
            before = await payouts.snapshot(session, rt, row)
            act(session, row, ApprovalActionKind.APPROVE if approve else ApprovalActionKind.REJECT, caller.key_id,
                comment)
            changed = True
            given = sum(1 for a in trail if a.action == ApprovalActionKind.APPROVE) + (1 if approve else 0)
            now = rt.clock.now()
            if not approve:
                row.status, row.approval_status, row.updated = PayoutStatus.REJECTED, ApprovalStatus.REJECTED, now
                await payouts.release(session, rt, row)
            elif given >= row.approvals_required:
                row.status, row.approval_status, row.updated = PayoutStatus.APPROVED, ApprovalStatus.APPROVED, now
            else:
                changed = False
            session.add(row)
            await session.flush()
            if changed:
                await payouts.record(session, rt, row, "payout.updated", before)
            out = await detail_of(session, rt, row)
    except IntegrityError:
        # The same key voting twice at once: the unique index let one of the two in.
        raise AlreadyGiven("payout: this key has already voted on this payout") from None
    return out


__all__ = ["decide", "detail", "pending"]
