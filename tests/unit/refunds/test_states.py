"""The refund state machine: one test per legal move, and every other move refused."""

from __future__ import annotations

import pytest

from server.refunds.states import HOLDING, TRANSITIONS, Event, Status, UnexpectedState, transition


@pytest.mark.parametrize(("status", "event", "after"), [(s, e, a) for (s, e), a in TRANSITIONS.items()])
def test_each_legal_move_reaches_its_status(status: Status, event: Event, after: Status) -> None:
    assert transition(status, event) == after


@pytest.mark.parametrize(("status", "event"), [(s, e) for s in Status for e in Event if (s, e) not in TRANSITIONS])
def test_every_other_move_is_an_unexpected_state(status: Status, event: Event) -> None:
    with pytest.raises(UnexpectedState):
        transition(status, event)


def test_a_failed_refund_no_longer_holds_its_amount() -> None:
    assert Status.FAILED not in HOLDING and {Status.PENDING, Status.PROCESSING, Status.SUCCESS} <= HOLDING
