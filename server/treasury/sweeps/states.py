"""The sweep state machine (DESIGN §15): one table of legal moves and one function that applies it.

    pending ──top-up signed──▶ funding ──sweep signed──▶ sending ──sweep confirmed──▶ succeeded
    pending ──sweep signed──▶ sending                   (a native coin, or a token whose address has the gas)
    funding ──top-up confirmed, or another signed──▶ funding
    funding, sending ──lost──▶ pending (the step is signed again next pass)
    funding, sending ──failed──▶ failed

A sweep opens `pending` (sweeps.claim) and has at most one transaction in flight; each move is made with the sweep
locked, in the transaction that signs or finishes that transaction. A move missing from the table raises
`UnexpectedState` (409): an ended sweep (succeeded, failed) takes none.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from server import state_machine


class Status(StrEnum):
    PENDING = "pending"  # claimed: nothing signed yet (or a top-up/sweep to sign again)
    FUNDING = "funding"  # a token sweep: the treasury's gas top-up is signed
    SENDING = "sending"  # the sweep transaction is signed
    SUCCEEDED = "succeeded"
    FAILED = "failed"


# Not ended yet: one per (network, deposit address, asset) at most.
OPEN = (Status.PENDING, Status.FUNDING, Status.SENDING)


class Event(StrEnum):
    TOP_UP_SIGNED = "top_up_signed"  # the treasury's gas top-up to the deposit address was signed and recorded
    TOP_UP_CONFIRMED = "top_up_confirmed"  # it reached the confirmation threshold: the sweep itself is next
    SWEEP_SIGNED = "sweep_signed"  # the deposit address's transfer to the treasury was signed and recorded
    SWEEP_CONFIRMED = "sweep_confirmed"  # it reached the confirmation threshold
    LOST = "lost"  # the transaction in flight lost its nonce to another: the step is signed again next pass
    FAILED = "failed"  # the transaction in flight reverted, or our cancel of it was mined


S, E = Status, Event
# The sweep's own steps first. The rows marked "guards only" are moves today's code admits (it signs any open sweep
# with nothing in flight, and lets the transaction in flight decide whatever step the sweep records) but never makes:
# a sweep has one transaction in flight at a time, and signing it moves the sweep in the same transaction.
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.PENDING, E.TOP_UP_SIGNED): S.FUNDING,
    (S.PENDING, E.SWEEP_SIGNED): S.SENDING,  # a native coin, or a token whose address already has the gas
    (S.FUNDING, E.TOP_UP_CONFIRMED): S.FUNDING,
    (S.FUNDING, E.TOP_UP_SIGNED): S.FUNDING,  # the top-up confirmed, and the gas needed rose meanwhile
    (S.FUNDING, E.SWEEP_SIGNED): S.SENDING,
    (S.FUNDING, E.LOST): S.PENDING,
    (S.FUNDING, E.FAILED): S.FAILED,
    (S.SENDING, E.SWEEP_CONFIRMED): S.SUCCEEDED,
    (S.SENDING, E.LOST): S.PENDING,
    (S.SENDING, E.FAILED): S.FAILED,
    # Guards only.
    (S.PENDING, E.TOP_UP_CONFIRMED): S.PENDING,
    (S.PENDING, E.SWEEP_CONFIRMED): S.SUCCEEDED,
    (S.PENDING, E.LOST): S.PENDING,
    (S.PENDING, E.FAILED): S.FAILED,
    (S.FUNDING, E.SWEEP_CONFIRMED): S.SUCCEEDED,
    (S.SENDING, E.TOP_UP_SIGNED): S.FUNDING,
    (S.SENDING, E.SWEEP_SIGNED): S.SENDING,
    (S.SENDING, E.TOP_UP_CONFIRMED): S.SENDING,
}


class UnexpectedState(state_machine.UnexpectedState):
    reason = "sweep_unexpected_state"
    noun = "sweep"


def allowed(status: str, event: Event) -> bool:
    return (status, event) in TRANSITIONS


def next_status(status: str, event: Event) -> Status:
    """The status after `event`, or `UnexpectedState`."""
    return state_machine.apply(TRANSITIONS, Status, UnexpectedState, status, event)


def move(row: Any, event: Event, facts: Mapping[str, object], now: int) -> None:
    """Puts the sweep `row` in the status after `event`, with `facts`, updated at `now`."""
    state_machine.enter(row, next_status(row.status, event), facts, now)
