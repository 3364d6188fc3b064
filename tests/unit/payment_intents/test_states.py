"""The payment intent state machine against the spec's table, written out here by hand (DESIGN §4).

The table below is NOT derived from `server.payment_intents.states.TRANSITIONS`: statuses are the spec's wire strings
and each row is one sentence of DESIGN §4, so a wrong, missing or extra row in the product table fails a test.
"""

import pytest

from server.payment_intents.states import Event, Status, UnexpectedState, allowed, transition

STATUSES = ["RequiresPaymentMethod", "Processing", "Success", "PartialPaid", "Canceled", "Refunded"]
EVENTS = ["transaction_seen", "paid_in_full", "paid_partially", "payment_failed", "transactions_reverted", "cancel",
          "expire", "refunded_in_full", "nothing_due"]

# (status, event) -> status after, one line per legal move of DESIGN §4.
LEGAL = {
    ("RequiresPaymentMethod", "transaction_seen"): "Processing",  # first transaction seen
    ("RequiresPaymentMethod", "cancel"): "Canceled",  # cancel before any transfer is seen (not while Processing)
    ("RequiresPaymentMethod", "expire"): "Canceled",  # expiry with nothing paid (cancellation_reason expired)
    ("RequiresPaymentMethod", "nothing_due"): "Success",  # a free trial's intent: a method chosen, 0 to pay (§8)
    ("Processing", "paid_in_full"): "Success",  # approved confirmed total >= due (or complete_on_first_payment)
    ("Processing", "paid_partially"): "PartialPaid",  # approved confirmed total < due
    ("Processing", "payment_failed"): "RequiresPaymentMethod",  # every transfer rejected by AML: nothing counts
    ("Processing", "transactions_reverted"): "RequiresPaymentMethod",  # a re-org dropped every transfer seen
    ("PartialPaid", "paid_in_full"): "Success",  # the rest arrives
    ("Success", "refunded_in_full"): "Refunded",  # full refund
    ("PartialPaid", "refunded_in_full"): "Refunded",  # full refund of what was captured
}
ILLEGAL = [(s, e) for s in STATUSES for e in EVENTS if (s, e) not in LEGAL]


def test_the_statuses_and_events_are_the_spec_vocabulary() -> None:
    assert sorted(s.value for s in Status) == sorted(STATUSES)
    assert sorted(e.value for e in Event) == sorted(EVENTS)


@pytest.mark.parametrize(("status", "event", "expected"), [(s, e, t) for (s, e), t in LEGAL.items()],
                         ids=[f"{s}-{e}" for (s, e) in LEGAL])
def test_each_legal_move_of_the_spec_reaches_its_status(status: str, event: str, expected: str) -> None:
    assert allowed(status, Event(event))
    assert transition(status, Event(event)).value == expected


@pytest.mark.parametrize(("status", "event"), ILLEGAL, ids=[f"{s}-{e}" for s, e in ILLEGAL])
def test_every_move_the_spec_does_not_list_is_refused_with_409(status: str, event: str) -> None:
    assert not allowed(status, Event(event))
    with pytest.raises(UnexpectedState) as refused:
        transition(status, Event(event))
    assert refused.value.reason == "payment_intent_unexpected_state"
    assert refused.value.code.name == "ABORTED"  # the standard table maps it to HTTP 409


@pytest.mark.parametrize("event", EVENTS)
def test_an_unknown_status_is_refused(event: str) -> None:
    with pytest.raises(UnexpectedState):
        transition("Completed", Event(event))


def test_canceled_and_refunded_are_final() -> None:
    assert [e for e in EVENTS if ("Canceled", e) in LEGAL or allowed("Canceled", Event(e))] == []
    assert [e for e in EVENTS if ("Refunded", e) in LEGAL or allowed("Refunded", Event(e))] == []
