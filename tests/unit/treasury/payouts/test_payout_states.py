"""The payout state machine against its moves, written out here by hand (DESIGN §15).

The table below is NOT derived from `server.treasury.payouts.states.TRANSITIONS`: statuses are the wire strings stored
in `payouts.status`, and each row is one move the treasury makes (the cancel call, an approver's decision, the
expiry job, the sender, the transaction's outcome), so a wrong, missing or extra row in the product table fails here.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from server.treasury.payouts.states import Event, NotCancelable, Status, UnexpectedState, allowed, move, next_status

STATUSES = ["pending", "approved", "rejected", "in_transit", "paid", "failed", "canceled"]
EVENTS = ["approve", "reject", "cancel", "expire", "submitted", "confirmed", "lost", "failed"]

# (status, event) -> status after, one line per move the treasury makes.
LEGAL = {
    ("pending", "approve"): "approved",  # the approval that reaches the count (approvals.py)
    ("pending", "reject"): "rejected",  # one approver's rejection
    ("pending", "cancel"): "canceled",  # the merchant cancels while it waits for approval
    ("pending", "expire"): "canceled",  # nobody decided in time (approval_expiry.py)
    ("approved", "cancel"): "canceled",  # the merchant cancels before it is signed
    ("approved", "submitted"): "in_transit",  # signed and recorded by the sender
    ("in_transit", "confirmed"): "paid",  # its transaction reached the confirmation threshold
    ("in_transit", "lost"): "approved",  # its nonce went elsewhere: signed again next pass
    ("in_transit", "failed"): "failed",  # reverted, or our cancel of it was mined
}
ILLEGAL = [(s, e) for s in STATUSES for e in EVENTS if (s, e) not in LEGAL]
NOT_CANCELABLE = [s for s in STATUSES if (s, "cancel") not in LEGAL]


def test_the_statuses_and_events_are_the_stored_vocabulary() -> None:
    assert sorted(s.value for s in Status) == sorted(STATUSES)
    assert sorted(e.value for e in Event) == sorted(EVENTS)


@pytest.mark.parametrize(("status", "event", "after"), [(s, e, a) for (s, e), a in LEGAL.items()],
                         ids=[f"{s}-{e}" for (s, e) in LEGAL])
def test_each_legal_move_reaches_its_status(status: str, event: str, after: str) -> None:
    assert allowed(status, Event(event))
    assert next_status(status, Event(event)).value == after


@pytest.mark.parametrize(("status", "event"), [m for m in ILLEGAL if m[1] != "cancel"],
                         ids=[f"{s}-{e}" for s, e in ILLEGAL if e != "cancel"])
def test_every_other_move_is_refused_with_409(status: str, event: str) -> None:
    assert not allowed(status, Event(event))
    with pytest.raises(UnexpectedState) as refused:
        next_status(status, Event(event))
    assert refused.value.reason == "payout_unexpected_state"
    assert refused.value.code.name == "ABORTED"


@pytest.mark.parametrize("status", NOT_CANCELABLE)
def test_a_cancel_refused_answers_payout_not_cancelable_with_its_message(status: str) -> None:
    with pytest.raises(NotCancelable) as refused:
        next_status(status, Event.CANCEL)
    assert refused.value.reason == "payout_not_cancelable"
    assert refused.value.code.name == "ABORTED"
    assert refused.value.message == f"payout: a payout {status} cannot be canceled"


def test_an_unknown_status_is_refused() -> None:
    with pytest.raises(UnexpectedState):
        next_status("sent", Event.CONFIRMED)


def test_move_puts_the_row_in_the_next_status_with_its_facts_at_now() -> None:
    row = SimpleNamespace(status="in_transit", updated=1, failure_reason="")
    move(row, Event.FAILED, {"failure_reason": "reverted"}, 7)
    assert (row.status, row.failure_reason, row.updated) == ("failed", "reverted", 7)


def test_move_refused_leaves_the_row_as_it_was() -> None:
    row = SimpleNamespace(status="paid", updated=1)
    with pytest.raises(UnexpectedState):
        move(row, Event.LOST, {}, 7)
    assert (row.status, row.updated) == ("paid", 1)
