"""The invoice state machine (DESIGN §8): draft -> open -> paid | void | uncollectible.

An invoice made while its subscription is paused is created directly in the state the pause behaviour names
(void, draft, uncollectible, or paid at 0); after that it moves only by this table. `void` takes an open or draft
invoice; anything else is `409 invoice_not_open`.
"""

from __future__ import annotations

from enum import StrEnum

from server import state_machine


class Status(StrEnum):
    DRAFT = "draft"
    OPEN = "open"
    PAID = "paid"
    VOID = "void"
    UNCOLLECTIBLE = "uncollectible"


class Event(StrEnum):
    FINALIZE = "finalize"
    PAY = "pay"
    VOID = "void"
    MARK_UNCOLLECTIBLE = "mark_uncollectible"


S, E = Status, Event
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.DRAFT, E.FINALIZE): S.OPEN,
    (S.DRAFT, E.VOID): S.VOID,
    (S.OPEN, E.PAY): S.PAID,
    (S.OPEN, E.VOID): S.VOID,
    (S.OPEN, E.MARK_UNCOLLECTIBLE): S.UNCOLLECTIBLE,
}

# Event type recorded when an invoice enters a status (paid also records invoice.payment_succeeded).
EVENT_TYPES: dict[Status, str] = {
    S.OPEN: "invoice.finalized",
    S.PAID: "invoice.paid",
    S.VOID: "invoice.voided",
    S.UNCOLLECTIBLE: "invoice.marked_uncollectible",
}


class NotOpen(state_machine.UnexpectedState):
    reason = "invoice_not_open"
    noun = "invoice"


def allowed(status: str, event: Event) -> bool:
    return (Status(status), event) in TRANSITIONS


def transition(status: str, event: Event) -> Status:
    return state_machine.apply(TRANSITIONS, Status, NotOpen, status, event)
