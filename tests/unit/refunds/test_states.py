"""The refund state machine against the spec's table, written out here by hand (DESIGN §6).

The table below is NOT derived from `server.refunds.states.TRANSITIONS`: statuses are the spec's wire strings and
each row is one step of DESIGN §6 (`Pending` → `Processing` → `Success` or `Failed`), so a wrong, missing or extra row
in the product table fails a test.
"""

from __future__ import annotations

import pytest

from server.refunds.states import HOLDING, Event, Status, UnexpectedState, transition

STATUSES = ["Pending", "Processing", "Success", "Failed"]
EVENTS = ["submitted", "confirmed", "failed"]

# (status, event) -> status after, one line per legal move of DESIGN §6.
LEGAL = {
    ("Pending", "submitted"): "Processing",  # transaction signed and broadcast
    ("Pending", "failed"): "Failed",  # cannot be signed (invalid_address, insufficient_funds, ...)
    ("Processing", "confirmed"): "Success",  # confirmed, tx_hash recorded
    ("Processing", "failed"): "Failed",  # its nonce went to our cancel or to its own reverted transaction
}
ILLEGAL = [(s, e) for s in STATUSES for e in EVENTS if (s, e) not in LEGAL]


def test_the_statuses_and_events_are_the_spec_vocabulary() -> None:
    assert sorted(s.value for s in Status) == sorted(STATUSES)
    assert sorted(e.value for e in Event) == sorted(EVENTS)


@pytest.mark.parametrize(("status", "event", "after"), [(s, e, a) for (s, e), a in LEGAL.items()],
                         ids=[f"{s}-{e}" for (s, e) in LEGAL])
def test_each_legal_move_of_the_spec_reaches_its_status(status: str, event: str, after: str) -> None:
    assert transition(status, Event(event)).value == after


@pytest.mark.parametrize(("status", "event"), ILLEGAL, ids=[f"{s}-{e}" for s, e in ILLEGAL])
def test_every_move_the_spec_does_not_list_is_refused_with_409(status: str, event: str) -> None:
    with pytest.raises(UnexpectedState) as refused:
        transition(status, Event(event))
    assert refused.value.reason == "refund_unexpected_state"
    assert refused.value.code.name == "ABORTED"


def test_success_and_failed_are_final() -> None:
    assert [(s, e) for (s, e) in LEGAL if s in ("Success", "Failed")] == []
    for final in ("Success", "Failed"):
        for event in EVENTS:
            with pytest.raises(UnexpectedState):
                transition(final, Event(event))


def test_a_failed_refund_no_longer_holds_its_amount() -> None:
    assert sorted(s.value for s in HOLDING) == ["Pending", "Processing", "Success"]
