"""The four-eyes state machine (DESIGN §15, §16): the `approval_status` of a payout, of a refund to another address,
and of a payout address, with one table of legal moves and one function that applies it.

    not_required ──required──▶ pending ──approve──▶ approved
    pending ──reject──▶ rejected;   pending ──expire──▶ expired

A row is created `pending` when it needs approvals, `not_required` otherwise; a payout address proven by its
micro-deposit comes to need one (addresses.py). Which approval decides, and what the row itself does then, is the
caller's (approvals.py, approval_expiry.py); this table only says which decisions a status can take.
"""

from __future__ import annotations

from enum import StrEnum

from server import state_machine


class Status(StrEnum):
    NOT_REQUIRED = "not_required"
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    EXPIRED = "expired"  # nobody decided within `approval_expiry_seconds`: canceled by paygate


class Event(StrEnum):
    REQUIRED = "required"  # an approval became needed (a payout address proven by its public micro-deposit)
    APPROVE = "approve"  # the approval that reaches the count
    REJECT = "reject"  # one approver's rejection
    EXPIRE = "expire"  # nobody decided in time (approval_expiry.py)


S, E = Status, Event
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.NOT_REQUIRED, E.REQUIRED): S.PENDING,
    (S.PENDING, E.APPROVE): S.APPROVED,
    (S.PENDING, E.REJECT): S.REJECTED,
    (S.PENDING, E.EXPIRE): S.EXPIRED,
}


class UnexpectedState(state_machine.UnexpectedState):
    reason = "approval_unexpected_state"
    noun = "approval"


def allowed(status: str, event: Event) -> bool:
    return (status, event) in TRANSITIONS


def next_status(status: str, event: Event) -> Status:
    """The approval status after `event`, or `UnexpectedState`."""
    return state_machine.apply(TRANSITIONS, Status, UnexpectedState, status, event)
