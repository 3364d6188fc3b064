"""The subscription state machine: one table of legal moves and one function that applies it (DESIGN §8).

    incomplete ──first invoice paid──▶ active ◀──invoice paid── past_due
        │                              │  ▲  │                      │
        │ intent expired/canceled      │  │  └─due date passed─────▶┘
        ▼                              │  │ resume / resumes_at         │ last retry failed
    canceled ◀── cancel now, period end│  │                             ▼
        ▲        with a scheduled cancel▼  │                          canceled
        └──────────────────────────── paused

Moves that keep the status (a renewal, a scheduled cancel, its revocation, a plan change) are rows too, so that
"may this subscription take this call" has one answer. A refused move raises the error the spec names for it:
anything on a canceled subscription is `subscription_already_canceled`; pausing a paused one
`subscription_already_paused`; resuming one that is not paused `subscription_not_paused`; everything else
`subscription_not_active` (all 409).
"""

from __future__ import annotations

from enum import StrEnum

from server import state_machine


class Status(StrEnum):
    INCOMPLETE = "incomplete"
    ACTIVE = "active"
    PAUSED = "paused"
    PAST_DUE = "past_due"
    CANCELED = "canceled"


class Event(StrEnum):
    FIRST_PAYMENT = "first_payment"  # the first invoice's intent reached Success (or a trial started)
    FIRST_PAYMENT_LAPSED = "first_payment_lapsed"  # the first invoice's intent expired or was canceled
    RENEW = "renew"  # a period ended: the next cycle's invoice is issued (and collected)
    INVOICE_PAID = "invoice_paid"  # a renewal or plan-change invoice was paid
    PAYMENT_OVERDUE = "payment_overdue"  # a renewal invoice is unpaid past its due date (or a card was declined)
    DUNNING_EXHAUSTED = "dunning_exhausted"  # still unpaid after the last retry
    PAUSE = "pause"
    RESUME = "resume"  # manual, or the scheduler at resumes_at
    CANCEL_NOW = "cancel_now"
    SCHEDULE_CANCEL = "schedule_cancel"  # cancel with cancel_at_period_end=true
    REVOKE_CANCEL = "revoke_cancel"
    PERIOD_END_CANCEL = "period_end_cancel"  # the period of a scheduled cancel ended
    CHANGE_PLAN = "change_plan"


S, E = Status, Event
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.INCOMPLETE, E.FIRST_PAYMENT): S.ACTIVE,
    (S.INCOMPLETE, E.FIRST_PAYMENT_LAPSED): S.CANCELED,
    (S.INCOMPLETE, E.CANCEL_NOW): S.CANCELED,
    (S.ACTIVE, E.RENEW): S.ACTIVE,
    (S.ACTIVE, E.INVOICE_PAID): S.ACTIVE,
    (S.ACTIVE, E.PAYMENT_OVERDUE): S.PAST_DUE,
    (S.ACTIVE, E.PAUSE): S.PAUSED,
    (S.ACTIVE, E.CANCEL_NOW): S.CANCELED,
    (S.ACTIVE, E.SCHEDULE_CANCEL): S.ACTIVE,
    (S.ACTIVE, E.REVOKE_CANCEL): S.ACTIVE,
    (S.ACTIVE, E.PERIOD_END_CANCEL): S.CANCELED,
    (S.ACTIVE, E.CHANGE_PLAN): S.ACTIVE,
    (S.PAST_DUE, E.RENEW): S.PAST_DUE,
    (S.PAST_DUE, E.INVOICE_PAID): S.ACTIVE,
    (S.PAST_DUE, E.PAYMENT_OVERDUE): S.PAST_DUE,
    (S.PAST_DUE, E.DUNNING_EXHAUSTED): S.CANCELED,
    (S.PAST_DUE, E.CANCEL_NOW): S.CANCELED,
    (S.PAST_DUE, E.SCHEDULE_CANCEL): S.PAST_DUE,
    (S.PAST_DUE, E.REVOKE_CANCEL): S.PAST_DUE,
    (S.PAST_DUE, E.PERIOD_END_CANCEL): S.CANCELED,
    (S.PAUSED, E.RESUME): S.ACTIVE,
    (S.PAUSED, E.RENEW): S.PAUSED,  # a paused period's invoice, in the state the pause behaviour names
    (S.PAUSED, E.CANCEL_NOW): S.CANCELED,
}

class UnexpectedState(state_machine.UnexpectedState):
    reason = "subscription_not_active"
    noun = "subscription"


class AlreadyCanceled(UnexpectedState):
    reason = "subscription_already_canceled"


class AlreadyPaused(UnexpectedState):
    reason = "subscription_already_paused"


class NotPaused(UnexpectedState):
    reason = "subscription_not_paused"


def refusal(status: str, event: Event) -> type[UnexpectedState]:
    """The error for a move that is not in the table (the spec's codes; DESIGN §8)."""
    if status == S.CANCELED:
        return AlreadyCanceled
    if event is E.PAUSE and status == S.PAUSED:
        return AlreadyPaused
    if event is E.RESUME:
        return NotPaused
    return UnexpectedState


def allowed(status: str, event: Event) -> bool:
    return (Status(status), event) in TRANSITIONS


def transition(status: str, event: Event) -> Status:
    """The status after `event`, or the refusal the spec names for it."""
    return state_machine.apply(TRANSITIONS, Status, refusal(status, event), status, event)
