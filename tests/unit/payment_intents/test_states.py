"""One test per row of the payment intent transition table, and the refusal of every other move."""

import pytest

from server.payment_intents.states import TRANSITIONS, Event, Status, UnexpectedState, allowed, transition


@pytest.mark.parametrize(("status", "event", "expected"), [(s, e, t) for (s, e), t in TRANSITIONS.items()],
                         ids=[f"{s.value}-{e.value}" for (s, e) in TRANSITIONS])
def test_each_row_of_the_table_is_a_legal_move(status: Status, event: Event, expected: Status) -> None:
    assert allowed(status, event)
    assert transition(status.value, event) == expected


ILLEGAL = [(s, e) for s in Status for e in Event if (s, e) not in TRANSITIONS]


@pytest.mark.parametrize(("status", "event"), ILLEGAL, ids=[f"{s.value}-{e.value}" for s, e in ILLEGAL])
def test_any_other_move_is_refused_with_409(status: Status, event: Event) -> None:
    assert not allowed(status, event)
    with pytest.raises(UnexpectedState) as refused:
        transition(status.value, event)
    assert refused.value.reason == "payment_intent_unexpected_state"
    assert refused.value.code.name == "ABORTED"  # the standard table maps it to HTTP 409


def test_canceled_and_refunded_are_final() -> None:
    assert not [e for e in Event if allowed(Status.CANCELED, e)]
    assert not [e for e in Event if allowed(Status.REFUNDED, e)]
