"""The payment intent state machine: one table of legal moves and one function that applies them.

Statuses are the spec's wire values. Events are what happened; the chain listener and the service derive them from
facts (transfers, cancel calls, the clock) and ask `transition()` for the next status. A move that is not in the
table raises `UnexpectedState` (409 `payment_intent_unexpected_state`).
"""

from __future__ import annotations

from enum import StrEnum

from server import state_machine


class Status(StrEnum):
    REQUIRES_PAYMENT_METHOD = "RequiresPaymentMethod"
    PROCESSING = "Processing"
    SUCCESS = "Success"
    PARTIAL_PAID = "PartialPaid"
    CANCELED = "Canceled"
    REFUNDED = "Refunded"


class ChargeStatus(StrEnum):
    """A charge's, derived from its transfers (`totals.charge_status`)."""

    PENDING = "Pending"
    SUCCESS = "Success"
    FAILED = "Failed"
    EXPIRED = "Expired"  # shown only: closed with nothing received


class Event(StrEnum):
    TRANSACTION_SEEN = "transaction_seen"  # a transfer to a deposit address was detected
    PAID_IN_FULL = "paid_in_full"  # approved confirmed funds cover the amount (or the first, see below)
    PAID_PARTIALLY = "paid_partially"  # approved confirmed funds below the amount
    PAYMENT_FAILED = "payment_failed"  # every transfer was rejected by AML: nothing counts
    TRANSACTIONS_REVERTED = "transactions_reverted"  # a re-organisation dropped every transfer seen
    CANCEL = "cancel"  # the merchant's cancel call (only before any transfer was seen)
    EXPIRE = "expire"  # expired_at passed with nothing paid
    REFUNDED_IN_FULL = "refunded_in_full"  # reserved for refunds
    NOTHING_DUE = "nothing_due"  # a payment method was chosen for an amount of 0 (a subscription's free trial)


S, E = Status, Event
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.REQUIRES_PAYMENT_METHOD, E.TRANSACTION_SEEN): S.PROCESSING,
    (S.REQUIRES_PAYMENT_METHOD, E.CANCEL): S.CANCELED,
    (S.REQUIRES_PAYMENT_METHOD, E.EXPIRE): S.CANCELED,
    (S.REQUIRES_PAYMENT_METHOD, E.NOTHING_DUE): S.SUCCESS,
    (S.PROCESSING, E.PAID_IN_FULL): S.SUCCESS,
    (S.PROCESSING, E.PAID_PARTIALLY): S.PARTIAL_PAID,
    (S.PROCESSING, E.PAYMENT_FAILED): S.REQUIRES_PAYMENT_METHOD,
    (S.PROCESSING, E.TRANSACTIONS_REVERTED): S.REQUIRES_PAYMENT_METHOD,
    # No (PROCESSING, CANCEL): funds on their way would land on a canceled intent, captured by the merchant yet
    # refundable by nobody. As with the established gateways, a processing payment cannot be canceled.
    (S.PARTIAL_PAID, E.PAID_IN_FULL): S.SUCCESS,
    (S.SUCCESS, E.REFUNDED_IN_FULL): S.REFUNDED,
    (S.PARTIAL_PAID, E.REFUNDED_IN_FULL): S.REFUNDED,
}

# Event type recorded when an intent enters a status (DESIGN §4).
EVENT_TYPES: dict[Status, str] = {
    S.PROCESSING: "payment_intent.processing",
    S.PARTIAL_PAID: "payment_intent.partially_paid",
    S.SUCCESS: "payment_intent.succeeded",
    S.CANCELED: "payment_intent.canceled",
}
# Statuses in which a payer may open a new payment attempt.
OPEN_FOR_PAYMENT = frozenset({S.REQUIRES_PAYMENT_METHOD, S.PARTIAL_PAID})


class UnexpectedState(state_machine.UnexpectedState):
    reason = "payment_intent_unexpected_state"
    noun = "payment intent"


def allowed(status: str, event: Event) -> bool:
    return (Status(status), event) in TRANSITIONS


def transition(status: str, event: Event) -> Status:
    """The status after `event`, or `UnexpectedState`."""
    return state_machine.apply(TRANSITIONS, Status, UnexpectedState, status, event)
