"""The refund state machine: one table of legal moves and one function that applies them (DESIGN §6)."""

from __future__ import annotations

from enum import StrEnum

from server import state_machine


class Status(StrEnum):
    PENDING = "Pending"
    PROCESSING = "Processing"
    SUCCESS = "Success"
    FAILED = "Failed"


class TransactionStatus(StrEnum):
    """A refund transaction's (one signed payout of a refund; a refund signed again has several)."""

    PENDING = "pending"  # signed and recorded; sent, or about to be
    CONFIRMED = "confirmed"  # mined at the confirmation threshold: the refund's transaction
    FAILED = "failed"  # its nonce went to another transaction, to our cancel, or it reverted


class Event(StrEnum):
    SUBMITTED = "submitted"  # the transaction was signed and recorded, about to be broadcast
    CONFIRMED = "confirmed"  # the transaction reached the network's confirmation threshold
    FAILED = "failed"  # it cannot be signed, or its nonce went to our cancel or to its own reverted transaction


S, E = Status, Event
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.PENDING, E.SUBMITTED): S.PROCESSING,
    (S.PENDING, E.FAILED): S.FAILED,
    (S.PROCESSING, E.CONFIRMED): S.SUCCESS,
    (S.PROCESSING, E.FAILED): S.FAILED,
}
# Event type recorded when a refund enters a status, besides `refund.updated` which every change records.
EVENT_TYPES: dict[Status, str] = {S.SUCCESS: "refund.succeeded", S.FAILED: "refund.failed"}
# Refunds whose amount counts against what remains refundable; a Failed refund frees its amount.
HOLDING = frozenset({S.PENDING, S.PROCESSING, S.SUCCESS})


class UnexpectedState(state_machine.UnexpectedState):
    reason = "refund_unexpected_state"
    noun = "refund"


def transition(status: str, event: Event) -> Status:
    """The status after `event`, or `UnexpectedState`."""
    return state_machine.apply(TRANSITIONS, Status, UnexpectedState, status, event)
