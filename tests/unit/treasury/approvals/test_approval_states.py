"""The four-eyes state machine (`approval_status` of payouts, refunds and payout addresses) against its moves,
written out here by hand (DESIGN §15, §16): NOT derived from `server.treasury.approvals.states.TRANSITIONS`."""

from __future__ import annotations

import pytest

from server.treasury.approvals.states import Event, Status, UnexpectedState, allowed, next_status

STATUSES = ["not_required", "pending", "approved", "rejected", "expired"]
EVENTS = ["required", "approve", "reject", "expire"]

LEGAL = {
    ("not_required", "required"): "pending",  # a payout address proven by its public micro-deposit (addresses.py)
    ("pending", "approve"): "approved",  # the approval that reaches the count (approvals.py)
    ("pending", "reject"): "rejected",  # one approver's rejection
    ("pending", "expire"): "expired",  # nobody decided in time (approval_expiry.py)
}
ILLEGAL = [(s, e) for s in STATUSES for e in EVENTS if (s, e) not in LEGAL]


def test_the_statuses_and_events_are_the_stored_vocabulary() -> None:
    assert sorted(s.value for s in Status) == sorted(STATUSES)
    assert sorted(e.value for e in Event) == sorted(EVENTS)


@pytest.mark.parametrize(("status", "event", "after"), [(s, e, a) for (s, e), a in LEGAL.items()],
                         ids=[f"{s}-{e}" for (s, e) in LEGAL])
def test_each_legal_move_reaches_its_status(status: str, event: str, after: str) -> None:
    assert allowed(status, Event(event))
    assert next_status(status, Event(event)).value == after


@pytest.mark.parametrize(("status", "event"), ILLEGAL, ids=[f"{s}-{e}" for s, e in ILLEGAL])
def test_every_other_move_is_refused_with_409(status: str, event: str) -> None:
    assert not allowed(status, Event(event))
    with pytest.raises(UnexpectedState) as refused:
        next_status(status, Event(event))
    assert refused.value.reason == "approval_unexpected_state"
    assert refused.value.code.name == "ABORTED"
