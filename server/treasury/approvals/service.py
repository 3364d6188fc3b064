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
from server.errors import Conflict, Forbidden, MissingParameter, NotFound, invalid
from server.merchants.models import ROLE_APPROVER
from server.payrolls import service as payrolls
from server.payrolls.models import Payroll
from server.refunds import convert as refund_convert
from server.refunds import service as refunds
from server.refunds.models import Refund
from server.refunds.states import Event as RefundEvent
from server.refunds.states import Status as RefundStatus
from server.scoping import find_owned
from server.treasury.addresses import convert as address_convert
from server.treasury.addresses import service as addresses
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
PAYOUT_PREFIX = "payout_"
PAYROLL_PREFIX = "payroll_"
INSTANCE_PREFIX = "apr_"
RESOURCE_TYPES = ("payout", "refund", "payout_address", "payroll")
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


class PayrollNotPending(Conflict):
    reason = "payroll_not_pending_approval"


class PayrollDecides(Conflict):
    """A payroll item's payout: its payroll is approved or rejected as one (one approval for the whole payroll)."""

    reason = "payout_in_payroll"


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


# The SDK's approval instance status of each approval status (DESIGN §17); a pending approval whose resource no longer
# waits (a payout or refund canceled before its approvers decided) is `canceled`.
INSTANCE_STATUS = {ApprovalStatus.NOT_REQUIRED: "approved", ApprovalStatus.PENDING: "pending",
                   ApprovalStatus.APPROVED: "approved", ApprovalStatus.REJECTED: "rejected",
                   ApprovalStatus.EXPIRED: "canceled"}
RECORD_ACTIONS = {ApprovalActionKind.CREATE: "start"}
RECORD_ROLES = {ApprovalActionKind.APPROVE: ROLE_APPROVER, ApprovalActionKind.REJECT: ROLE_APPROVER,
                ApprovalActionKind.CREATE: "merchant", ApprovalActionKind.CANCEL: "merchant"}


def instance_id(resource_id: str) -> str:
    """An approval instance is one per resource, so its id is the resource's random part under `apr_`: nothing to
    store or keep in step, and `resource_of` finds the resource back from it."""
    return INSTANCE_PREFIX + resource_id.split("_", 1)[1]


async def resource_of(session: AsyncSession, caller: Caller, approval_id: str) -> str:
    """The id of the caller's payout, refund, payout address or payroll whose approval instance `approval_id` is."""
    suffix = approval_id.removeprefix(INSTANCE_PREFIX)
    models: tuple[tuple[Any, str], ...] = ((PayoutRow, PAYOUT_PREFIX), (Refund, REFUND_PREFIX),
                                           (MerchantAddress, ADDRESS_PREFIX), (Payroll, PAYROLL_PREFIX))
    for model, prefix in models:
        if suffix and await find_owned(session, model, prefix + suffix, caller) is not None:
            return prefix + suffix
    raise NotFound("approval", approval_id)


def _detail(row: PayoutRow | Refund | MerchantAddress | payrolls.ApprovalView, trail: list[PayoutApprovalAction],
            waits: bool, kind: str = "", **resource: Any) -> pb.ApprovalDetail:
    """`resource`: `payout=` or `refund=` the row as its own API shows it; its name is the resource type. Also the
    SDK's approval instance of the row (DESIGN §17): `waits` is whether the row still waits for its approvers."""
    if not kind:  # a payroll (`kind`) has no field of its own in ApprovalDetail: GET /v1/payrolls/{id} shows it
        [kind] = resource
    given = sum(1 for a in trail if a.action == ApprovalActionKind.APPROVE)
    status = INSTANCE_STATUS[ApprovalStatus(row.approval_status)]
    if status == "pending" and not waits:
        status = "canceled"
    created = row.created_at if isinstance(row, MerchantAddress) else row.created
    updated = max([created, *(a.created for a in trail)])
    own_id = instance_id(row.id)
    step = None
    if status == "pending":
        order = given + 1
        step = pb.ApprovalStep(id=f"{own_id}:{order}", flow_id=f"four_eyes:{kind}", step_order=order,
                               namespace="merchant", roles=[ROLE_APPROVER],
                               next_on_approve=order + 1 if order < row.approvals_required else 0,
                               next_on_reject=0, created_at=created, updated_at=updated)
    return pb.ApprovalDetail(
        resource_id=row.id, resource_type=kind, approval_status=row.approval_status,
        approvals_required=row.approvals_required, approvals_given=given,
        actions=[pb.ApprovalAction(id=a.id, action=a.action, key_id=a.key_id, comment=a.comment, created=a.created)
                 for a in trail],
        id=own_id, object="approval_instance", merchant_id=row.merchant_id, status=status, current_step=step,
        records=[pb.ApprovalRecord(id=a.id, action=RECORD_ACTIONS.get(ApprovalActionKind(a.action), a.action),
                                   comment=a.comment, approver_id=a.key_id,
                                   approver_role=RECORD_ROLES.get(ApprovalActionKind(a.action), "") if a.key_id else "",
                                   created_at=a.created, namespace="merchant") for a in trail],
        created_at=created, updated_at=updated, **resource)


async def detail_of(session: AsyncSession, rt: TreasuryEnv, row: PayoutRow) -> pb.ApprovalDetail:
    return (await _payout_details(session, rt, [row]))[0]


async def refund_detail_of(session: AsyncSession, rt: TreasuryEnv, row: Refund) -> pb.ApprovalDetail:
    return (await _refund_details(session, rt, [row]))[0]


async def _payout_details(session: AsyncSession, rt: TreasuryEnv, rows: list[PayoutRow]) -> list[pb.ApprovalDetail]:
    """Two queries whatever the number of rows: their transfers and their trails."""
    ids = [r.id for r in rows]
    txs, trails = await payouts.transactions(session, ids), await _trails(session, ids)
    return [_detail(r, trails[r.id], r.status == PayoutStatus.PENDING,
                    payout=payouts.to_proto(rt.catalogue, r, txs.get(r.id, []),
                                            fee_from_amount=payouts.fee_from_amount(rt, r.asset_id))) for r in rows]


async def _refund_details(session: AsyncSession, rt: TreasuryEnv, rows: list[Refund]) -> list[pb.ApprovalDetail]:
    ids = [r.id for r in rows]
    txs, trails = await refunds.transactions(session, ids), await _trails(session, ids)
    return [_detail(r, trails[r.id], r.status == RefundStatus.PENDING,
                    refund=refund_convert.to_proto(rt.catalogue, r, txs[r.id])) for r in rows]


async def _address_details(session: AsyncSession, rt: TreasuryEnv, rows: list[MerchantAddress],
                           ) -> list[pb.ApprovalDetail]:
    trails = await _trails(session, [r.id for r in rows])
    return [_detail(r, trails[r.id], addresses.waits_for_approval(r), payout_address=address_convert.to_proto(rt, r))
            for r in rows]


async def _payroll_details(session: AsyncSession, rows: list[Payroll], *, lock: bool = False,
                           ) -> list[pb.ApprovalDetail]:
    """Two queries whatever the number of payrolls: their item payouts and their trails. A payroll not confirmed has
    no approval yet."""
    for r in rows:
        if not r.confirmed_at:
            raise NotFound("approval", instance_id(r.id))
    ids = [r.id for r in rows]
    made, trails = await payrolls.payouts_of(session, ids, lock=lock), await _trails(session, ids)
    return [_detail(payrolls.approval_view(r, made[r.id]), trails[r.id], _waiting(made[r.id]) != [], kind="payroll")
            for r in rows]


def _waiting(items: list[PayoutRow]) -> list[PayoutRow]:
    """The item payouts of a payroll that still wait for its approvers."""
    return [p for p in items if payout_states.allowed(p.status, PayoutEvent.APPROVE)
            and approval_states.allowed(p.approval_status, ApprovalEvent.APPROVE)]


async def detail(rt: TreasuryEnv, caller: Caller, resource_id: str, instance: str = "",
                 resource_type: str = "") -> pb.ApprovalDetail:
    """By the resource's id or its approval instance's (`resource_id` or the SDK's `instance_id`; both given, they
    must name one approval); `resource_type`, when given, must be the resource's."""
    resource_id, instance, resource_type = resource_id.strip(), instance.strip(), resource_type.strip()
    if not resource_id and not instance:
        raise MissingParameter("resource_id")
    if resource_type and resource_type not in RESOURCE_TYPES:
        raise invalid("resource_type", f"must be one of {', '.join(RESOURCE_TYPES)}")
    async with rt.db.read() as session:
        if instance:
            if not instance.startswith(INSTANCE_PREFIX):
                raise invalid("instance_id", "an approval instance id starts with apr_")
            found = await resource_of(session, caller, instance)
            if resource_id and resource_id not in (found, instance):
                raise invalid("instance_id", "names another approval than resource_id")
            resource_id = found
        elif resource_id.startswith(INSTANCE_PREFIX):
            resource_id = await resource_of(session, caller, resource_id)
        if resource_id.startswith(ADDRESS_PREFIX):
            shown = (await _address_details(session, rt, [await addresses.get(session, caller, resource_id)]))[0]
        elif resource_id.startswith(PAYROLL_PREFIX):
            shown = (await _payroll_details(session, [await payrolls.get(session, caller, resource_id)]))[0]
        elif resource_id.startswith(REFUND_PREFIX):
            refund, _ = await refunds.get(session, caller, resource_id)
            shown = await refund_detail_of(session, rt, refund)
        else:
            shown = await detail_of(session, rt, await payouts.get(session, caller, resource_id))
    if resource_type and shown.resource_type != resource_type:
        raise NotFound(resource_type, resource_id)
    return shown


async def pending(rt: TreasuryEnv, caller: Caller) -> list[pb.ApprovalDetail]:
    """Payouts, then refunds, then payout addresses, then payrolls waiting for approval, oldest first (at most 100 of
    each); a payroll's item payouts are listed as their payroll."""
    async with rt.db.read() as session:
        rows = list(await session.exec(select(PayoutRow).where(
            PayoutRow.merchant_id == caller.merchant_id, PayoutRow.livemode == caller.livemode,
            PayoutRow.status == PayoutStatus.PENDING, col(PayoutRow.payroll_id).is_(None))
            .order_by(col(PayoutRow.sort_key)).limit(100)))
        waiting_payrolls = list(await session.exec(select(Payroll).where(
            Payroll.merchant_id == caller.merchant_id, Payroll.livemode == caller.livemode,
            col(Payroll.id).in_(select(PayoutRow.payroll_id).where(
                PayoutRow.merchant_id == caller.merchant_id, PayoutRow.livemode == caller.livemode,
                PayoutRow.status == PayoutStatus.PENDING, col(PayoutRow.payroll_id).is_not(None))))
            .order_by(col(Payroll.sort_key)).limit(100)))
        waiting = list(await session.exec(select(Refund).where(
            Refund.merchant_id == caller.merchant_id, Refund.livemode == caller.livemode,
            Refund.status == RefundStatus.PENDING, Refund.approval_status == ApprovalStatus.PENDING)
            .order_by(col(Refund.sort_key)).limit(100)))
        unapproved = list(await session.exec(select(MerchantAddress).where(*addresses.waiting_for_approval(caller))
                                             .order_by(col(MerchantAddress.sort_key)).limit(100)))
        return [*await _payout_details(session, rt, rows), *await _refund_details(session, rt, waiting),
                *await _address_details(session, rt, unapproved), *await _payroll_details(session, waiting_payrolls)]


async def _vote(session: AsyncSession, caller: Caller,
                row: PayoutRow | Refund | MerchantAddress | payrolls.ApprovalView, noun: str,
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
    if row.payroll_id:
        raise PayrollDecides(f"payout: {row.id} is an item of payroll {row.payroll_id}, which is approved or rejected "
                             "as one: decide the payroll")
    waits = (payout_states.allowed(row.status, PayoutEvent.APPROVE)
             and approval_states.allowed(row.approval_status, ApprovalEvent.APPROVE))
    before = await payouts.snapshot(session, rt, row) if waits else None
    if await _vote(session, caller, row, "payout", waits, NotPending, approve, comment):
        await _decided(session, rt, row, approve, before)
    return await detail_of(session, rt, row)


async def _decided(session: AsyncSession, rt: TreasuryEnv, row: PayoutRow, approve: bool,
                   before: dict[str, Any] | None) -> None:
    """A payout its approvers decided (alone, or as an item of its payroll): moved, released when rejected, told."""
    payout_event, approval_event = ((PayoutEvent.APPROVE, ApprovalEvent.APPROVE) if approve else
                                    (PayoutEvent.REJECT, ApprovalEvent.REJECT))
    decision = approval_states.next_status(row.approval_status, approval_event)
    payout_states.move(row, payout_event, {"approval_status": decision}, rt.clock.now())
    if not approve:
        await payouts.release(session, rt, row)
    session.add(row)
    await session.flush()
    await payouts.record(session, rt, row, "payout.updated", before)


async def _decide_payroll(session: AsyncSession, rt: TreasuryEnv, caller: Caller, payroll_id: str, comment: str,
                          approve: bool) -> pb.ApprovalDetail:
    """One vote on the whole payroll; the decision moves every item payout that waits, in this one transaction."""
    payroll = await payrolls.get(session, caller, payroll_id, lock=True)
    items = (await payrolls.payouts_of(session, [payroll.id], lock=True))[payroll.id]
    waiting = _waiting(items)
    if caller.role == ROLE_APPROVER and caller.key_id == payroll.created_by_key:
        raise ApproverKeyRequired("the key that created a payroll cannot approve it")
    if await _vote(session, caller, payrolls.approval_view(payroll, items), "payroll", bool(waiting),
                   PayrollNotPending, approve, comment):
        for row in waiting:
            await _decided(session, rt, row, approve, await payouts.snapshot(session, rt, row))
    return (await _payroll_details(session, [payroll]))[0]


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
    if resource_id.startswith(INSTANCE_PREFIX):
        async with rt.db.read() as session:
            resource_id = await resource_of(session, caller, resource_id)
    noun = ("refund" if resource_id.startswith(REFUND_PREFIX) else
            "payout address" if resource_id.startswith(ADDRESS_PREFIX) else
            "payroll" if resource_id.startswith(PAYROLL_PREFIX) else "payout")
    try:
        async with rt.db.transaction() as session:
            if noun == "payout address":
                return await _decide_address(session, rt, caller, resource_id, comment, approve)
            if noun == "payroll":
                return await _decide_payroll(session, rt, caller, resource_id, comment, approve)
            if noun == "refund":
                return await _decide_refund(session, rt, caller, resource_id, comment, approve)
            return await _decide_payout(session, rt, caller, resource_id, comment, approve)
    except IntegrityError:
        # The same key voting twice at once: the unique index let one of the two in.
        raise AlreadyGiven(f"{noun}: this key has already voted on this {noun}") from None


__all__ = ["decide", "detail", "pending"]
