"""The payout state machine (DESIGN §15): one table of legal moves and one function that applies it.

    pending ──approve──▶ approved ──submitted──▶ in_transit ──confirmed──▶ paid
    pending ──reject──▶ rejected;   pending ──cancel, expire──▶ canceled;   approved ──cancel──▶ canceled
    in_transit ──lost──▶ approved (signed again, fresh nonce);   in_transit ──failed──▶ failed

A payout is created `pending` when it needs approvals, `approved` when it does not (payouts.create). A move missing
from the table raises `UnexpectedState` (409); a cancel refused is `payout_not_cancelable`, as it always was.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from server import state_machine


class Status(StrEnum):
    PENDING = "pending"  # waiting for approval
    APPROVED = "approved"  # to be sent
    REJECTED = "rejected"
    IN_TRANSIT = "in_transit"  # signed and sent; waiting for confirmations
    PAID = "paid"
    FAILED = "failed"
    CANCELED = "canceled"


class Event(StrEnum):
    APPROVE = "approve"  # the approval that reaches the count (approvals.py)
    REJECT = "reject"  # one approver's rejection
    CANCEL = "cancel"  # the merchant's cancel call
    EXPIRE = "expire"  # nobody decided within `approval_expiry_seconds` (approval_expiry.py)
    SUBMITTED = "submitted"  # its transaction was signed and recorded, about to be broadcast
    CONFIRMED = "confirmed"  # its transaction reached the confirmation threshold
    LOST = "lost"  # its nonce went to a transaction we did not sign: signed again, fresh nonce, next pass
    FAILED = "failed"  # its transaction reverted, or our cancel of it was mined


S, E = Status, Event
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.PENDING, E.APPROVE): S.APPROVED,
    (S.PENDING, E.REJECT): S.REJECTED,
    (S.PENDING, E.CANCEL): S.CANCELED,
    (S.PENDING, E.EXPIRE): S.CANCELED,
    (S.APPROVED, E.CANCEL): S.CANCELED,
    (S.APPROVED, E.SUBMITTED): S.IN_TRANSIT,
    # No (IN_TRANSIT, CANCEL): its transaction is signed and may be mined whatever the merchant says.
    (S.IN_TRANSIT, E.CONFIRMED): S.PAID,
    (S.IN_TRANSIT, E.LOST): S.APPROVED,
    (S.IN_TRANSIT, E.FAILED): S.FAILED,
}


class UnexpectedState(state_machine.UnexpectedState):
    reason = "payout_unexpected_state"
    noun = "payout"


class NotCancelable(UnexpectedState):
    reason = "payout_not_cancelable"

    def __init__(self, status: str, event: str) -> None:
        super().__init__(status, event)
        # The message the cancel call has always answered with.
        self.message = f"payout: a payout {status} cannot be canceled"
        self.args = (self.message,)


def refusal(status: str, event: Event) -> type[UnexpectedState]:
    return NotCancelable if event is E.CANCEL else UnexpectedState


def allowed(status: str, event: Event) -> bool:
    return (status, event) in TRANSITIONS


def next_status(status: str, event: Event) -> Status:
    """The status after `event`, or its refusal."""
    return state_machine.apply(TRANSITIONS, Status, refusal(status, event), status, event)


def move(row: Any, event: Event, facts: Mapping[str, object], now: int) -> None:
    """Puts the payout `row` in the status after `event`, with `facts`, updated at `now`."""
    state_machine.enter(row, next_status(row.status, event), facts, now)
