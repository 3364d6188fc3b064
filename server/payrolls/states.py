"""A payroll's status and approval status, computed from its items' payouts each time it is read (never stored, so
there is no second copy of the payouts' state to keep in step)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from server.treasury.approvals.models import ApprovalStatus
from server.treasury.payouts.models import PayoutStatus

if TYPE_CHECKING:
    from server.payrolls.models import Payroll
    from server.treasury.payouts.models import Payout as PayoutRow

NOT_SUBMITTED = "not_submitted"  # the approval status of a payroll not confirmed yet


class Status:
    CREATED = "created"
    PENDING_APPROVAL = "pending_approval"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    REJECTED = "rejected"
    CANCELED = "canceled"


STATUSES = (Status.CREATED, Status.PENDING_APPROVAL, Status.PROCESSING, Status.COMPLETED, Status.FAILED,
            Status.REJECTED, Status.CANCELED)
_MOVING = {PayoutStatus.APPROVED, PayoutStatus.IN_TRANSIT}


def status_of(confirmed: bool, payout_statuses: Collection[str]) -> str:
    """The one table of a payroll's status, from its items' payouts:

    not confirmed → created; any item waiting for approval → pending_approval; else any item to be sent or on its way
    → processing; else (every item ended) all paid → completed, any failed → failed, any rejected → rejected, the
    rest (canceled or expired items, with or without paid ones) → canceled."""
    seen = set(payout_statuses)
    if not confirmed or not seen:
        return Status.CREATED
    if PayoutStatus.PENDING in seen:
        return Status.PENDING_APPROVAL
    if seen & _MOVING:
        return Status.PROCESSING
    if seen == {PayoutStatus.PAID}:
        return Status.COMPLETED
    if PayoutStatus.FAILED in seen:
        return Status.FAILED
    if PayoutStatus.REJECTED in seen:
        return Status.REJECTED
    return Status.CANCELED


def approval_status_of(payroll: Payroll, items: list[PayoutRow]) -> str:
    """One approval for the whole payroll: what its items' payouts say (they are decided together)."""
    if not payroll.confirmed_at:
        return NOT_SUBMITTED
    seen = {p.approval_status for p in items}
    for status in (ApprovalStatus.PENDING, ApprovalStatus.REJECTED, ApprovalStatus.APPROVED, ApprovalStatus.EXPIRED):
        if status in seen:
            return status
    return ApprovalStatus.NOT_REQUIRED


