"""Four-eyes approval of payouts, and of refunds to an address other than the payer's (DESIGN §15, §16).

A payout that would take what the merchant sends out unapproved within 24 hours above its threshold (in its
settlement currency, at current rates) needs the merchant's approvals in that mode from distinct approver keys (0:
none; 1 by default once the merchant has an approver key in the mode; live payouts are refused without one unless
turned off explicitly: the rule is `approval_trail.rule_of` and `.required`); it is created `pending`, its amount
already locked, and the scheduler only sends `approved` payouts. A refund to an address the caller names rather than
the payer's needs as many whatever its amount (`refunds.service.approvals_required`); it waits Pending, its amount
locked, and the refund sender takes it once approved. Votes are taken with the row locked, so the count is crossed
once whatever the concurrency; one vote per key is also enforced by a unique index. One rejection rejects it and
releases its amount (a rejected refund is Failed, `approval_rejected`). A payout address (`ma_…`, resource type
`payout_address`) needs one approver's approval in live mode or once proven by its micro-deposit; its rules live in
`addresses` (`waits_for_approval`, `decided`). Every action is appended to the audit trail.
"""

from __future__ import annotations

from typing import Any, cast

from paygate.v1 import payouts_pb2 as pb
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import validate
from server.context import Caller
from server.errors import Conflict, Forbidden, MissingParameter
from server.merchants.models import ROLE_APPROVER
from server.refunds import convert as refund_convert
from server.refunds import service as refunds
from server.refunds.models import Refund
from server.refunds.states import Event as RefundEvent
from server.refunds.states import Status as RefundStatus
from server.treasury.addresses import service as addresses
from server.treasury.addresses import servicer as address_servicer
from server.treasury.addresses.models import MerchantAddress
from server.treasury.approvals import states as approval_states
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus, PayoutApprovalAction
from server.treasury.approvals.states import Event as ApprovalEvent
from server.treasury.approvals.trail import VOTES, act
from server.treasury.env import TreasuryEnv
from server.treasury.payouts import service as payouts
from server.treasury.payouts import states as payout_states
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.models import PayoutStatus
from server.treasury.payouts.states import Event as PayoutEvent

REFUND_PREFIX = "rf_"
ADDRESS_PREFIX = "ma_"
REJECTED = "approval_rejected"  # a rejected refund's failure_reason


class ApproverKeyRequired(Forbidden):
    reason = "approver_key_required"


class AlreadyGiven(Conflict):
    reason = "approval_already_given"


class NotPending(Conflict):
    reason = "payout_not_pending_approval"


class RefundNotPending(Conflict):
    reason = "refund_not_pending_approval"


class AddressNotPending(Conflict):
    reason = "address_not_pending_approval"


async def actions(session: AsyncSession, payout_id: str) -> list[PayoutApprovalAction]:
    return (await _trails(session, [payout_id]))[payout_id]


async def _trails(session: AsyncSession, ids: list[str]) -> dict[str, list[PayoutApprovalAction]]:
    """The audit trails of payouts or refunds (the column holds either's id), oldest action first, in one query."""
    out: dict[str, list[PayoutApprovalAction]] = {i: [] for i in ids}
    if ids:
        for a in await session.exec(select(PayoutApprovalAction).where(col(PayoutApprovalAction.payout_id).in_(ids))
                                    .order_by(col(PayoutApprovalAction.sort_key))):
            out[a.payout_id].append(a)
    return out


def _detail(row: PayoutRow | Refund | MerchantAddress, trail: list[PayoutApprovalAction],
            **resource: Any) -> pb.ApprovalDetail:
    """`resource`: `payout=` or `refund=` the row as its own API shows it; its name is the resource type."""
    [kind] = resource
    return pb.ApprovalDetail(
        resource_id=row.id, resource_type=kind, approval_status=row.approval_status,
        approvals_required=row.approvals_required,
        approvals_given=sum(1 for a in trail if a.action == ApprovalActionKind.APPROVE),
        actions=[pb.ApprovalAction(id=a.id, action=a.action, key_id=a.key_id, comment=a.comment, created=a.created)
                 for a in trail], **resource)


async def detail_of(session: AsyncSession, rt: TreasuryEnv, row: PayoutRow) -> pb.ApprovalDetail:
    return (await _payout_details(session, rt, [row]))[0]


async def refund_detail_of(session: AsyncSession, rt: TreasuryEnv, row: Refund) -> pb.ApprovalDetail:
    return (await _refund_details(session, rt, [row]))[0]


async def _payout_details(session: AsyncSession, rt: TreasuryEnv, rows: list[PayoutRow]) -> list[pb.ApprovalDetail]:
    """Two queries whatever the number of rows: their transfers and their trails."""
    ids = [r.id for r in rows]
    txs, trails = await payouts.transactions(session, ids), await _trails(session, ids)
    return [_detail(r, trails[r.id], payout=payouts.to_proto(rt.catalogue, r, txs.get(r.id, []))) for r in rows]


async def _refund_details(session: AsyncSession, rt: TreasuryEnv, rows: list[Refund]) -> list[pb.ApprovalDetail]:
    ids = [r.id for r in rows]
    txs, trails = await refunds.transactions(session, ids), await _trails(session, ids)
    return [_detail(r, trails[r.id], refund=refund_convert.to_proto(rt.catalogue, r, txs[r.id])) for r in rows]


async def _address_details(session: AsyncSession, rt: TreasuryEnv, rows: list[MerchantAddress],
                           ) -> list[pb.ApprovalDetail]:
    trails = await _trails(session, [r.id for r in rows])
    return [_detail(r, trails[r.id], payout_address=address_servicer.to_proto(rt, r)) for r in rows]


async def detail(rt: TreasuryEnv, caller: Caller, resource_id: str) -> pb.ApprovalDetail:
    resource_id = resource_id.strip()
    if not resource_id:
        raise MissingParameter("resource_id")
    async with rt.db.read() as session:
        if resource_id.startswith(ADDRESS_PREFIX):
            return (await _address_details(session, rt, [await addresses.get(session, caller, resource_id)]))[0]
        if resource_id.startswith(REFUND_PREFIX):
            refund, _ = await refunds.get(session, caller, resource_id)
            return await refund_detail_of(session, rt, refund)
        row = await payouts.get(session, caller, resource_id)
        return await detail_of(session, rt, row)


async def pending(rt: TreasuryEnv, caller: Caller) -> list[pb.ApprovalDetail]:
    """Payouts, then refunds, then payout addresses waiting for approval, oldest first (at most 100 of each)."""
    async with rt.db.read() as session:
        rows = list(await session.exec(select(PayoutRow).where(
            PayoutRow.merchant_id == caller.merchant_id, PayoutRow.livemode == caller.livemode,
            PayoutRow.status == PayoutStatus.PENDING).order_by(col(PayoutRow.sort_key)).limit(100)))
        waiting = list(await session.exec(select(Refund).where(
            Refund.merchant_id == caller.merchant_id, Refund.livemode == caller.livemode,
            Refund.status == RefundStatus.PENDING, Refund.approval_status == ApprovalStatus.PENDING)
            .order_by(col(Refund.sort_key)).limit(100)))
        unapproved = list(await session.exec(select(MerchantAddress).where(*addresses.waiting_for_approval(caller))
                                             .order_by(col(MerchantAddress.sort_key)).limit(100)))
        return [*await _payout_details(session, rt, rows), *await _refund_details(session, rt, waiting),
                *await _address_details(session, rt, unapproved)]


async def _vote(session: AsyncSession, caller: Caller, row: PayoutRow | Refund | MerchantAddress, noun: str,
                waits: bool,
                not_pending: type[Conflict], approve: bool, comment: str) -> bool:
    """One approver's vote on `row` (locked), appended to its trail. True when it decides: a rejection, or the
    approval that reaches the count."""
    if caller.role != ROLE_APPROVER:
        raise ApproverKeyRequired(f"only an approver key may approve or reject a {noun}")
    if not waits:
        raise not_pending(f"{noun}: a {noun} {row.status} does not wait for approval")
    if caller.key_id == row.created_by_key:
        raise ApproverKeyRequired(f"the key that created a {noun} cannot approve it")
    trail = await actions(session, row.id)
    if any(a.key_id == caller.key_id and a.action in VOTES for a in trail):
        raise AlreadyGiven(f"{noun}: this key has already voted on this {noun}")
    # `act` reads only the id and merchant of the row, which an address has too (its annotation predates them).
    act(session, cast("PayoutRow | Refund", row), ApprovalActionKind.APPROVE if approve else ApprovalActionKind.REJECT,
        caller.key_id, comment)
    given = sum(1 for a in trail if a.action == ApprovalActionKind.APPROVE) + (1 if approve else 0)
    return not approve or given >= row.approvals_required


async def _decide_payout(session: AsyncSession, rt: TreasuryEnv, caller: Caller, payout_id: str, comment: str,
                         approve: bool) -> pb.ApprovalDetail:
    # Scoped first: another merchant's payout is 404 whatever key asks.
    row = await payouts.get(session, caller, payout_id, lock=True)
    waits = (payout_states.allowed(row.status, PayoutEvent.APPROVE)
             and approval_states.allowed(row.approval_status, ApprovalEvent.APPROVE))
    before = await payouts.snapshot(session, rt, row) if waits else None
    if await _vote(session, caller, row, "payout", waits, NotPending, approve, comment):
        payout_event, approval_event = ((PayoutEvent.APPROVE, ApprovalEvent.APPROVE) if approve else
                                        (PayoutEvent.REJECT, ApprovalEvent.REJECT))
        decision = approval_states.next_status(row.approval_status, approval_event)
        payout_states.move(row, payout_event, {"approval_status": decision}, rt.clock.now())
        if not approve:
            await payouts.release(session, rt, row)
        session.add(row)
        await session.flush()
        await payouts.record(session, rt, row, "payout.updated", before)
    return await detail_of(session, rt, row)


async def _decide_refund(session: AsyncSession, rt: TreasuryEnv, caller: Caller, refund_id: str, comment: str,
                         approve: bool) -> pb.ApprovalDetail:
    row = await refunds.lock_owned(session, caller, refund_id)
    waits = row.status == RefundStatus.PENDING and row.approval_status == ApprovalStatus.PENDING
    if await _vote(session, caller, row, "refund", waits, RefundNotPending, approve, comment):
        if approve:
            await refunds.approved(session, rt, row)
        else:
            await refunds.move(session, rt, row, RefundEvent.FAILED, failure_reason=REJECTED,
                               approval_status=approval_states.next_status(row.approval_status,
                                                                           ApprovalEvent.REJECT))
    return await refund_detail_of(session, rt, row)


async def _decide_address(session: AsyncSession, rt: TreasuryEnv, caller: Caller, address_id: str, comment: str,
                          approve: bool) -> pb.ApprovalDetail:
    row = await addresses.get(session, caller, address_id, lock=True)
    if await _vote(session, caller, row, "payout address", addresses.waits_for_approval(row), AddressNotPending,
                   approve, comment):
        addresses.decided(session, row, approve=approve)
        await session.flush()
    return (await _address_details(session, rt, [row]))[0]


async def decide(rt: TreasuryEnv, caller: Caller, resource_id: str, comment: str, *,
                 approve: bool) -> pb.ApprovalDetail:
    comment = validate.text("comment", comment, max_length=1000)
    resource_id = resource_id.strip()
    noun = ("refund" if resource_id.startswith(REFUND_PREFIX) else
            "payout address" if resource_id.startswith(ADDRESS_PREFIX) else "payout")
    try:
        async with rt.db.transaction() as session:
            if noun == "payout address":
                return await _decide_address(session, rt, caller, resource_id, comment, approve)
            if noun == "refund":
                return await _decide_refund(session, rt, caller, resource_id, comment, approve)
            return await _decide_payout(session, rt, caller, resource_id, comment, approve)
    except IntegrityError:
        # The same key voting twice at once: the unique index let one of the two in.
        raise AlreadyGiven(f"{noun}: this key has already voted on this {noun}") from None


__all__ = ["decide", "detail", "pending"]
