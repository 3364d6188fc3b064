"""The subscription state table, written out by hand: one test per legal move, and every other (status, event)
pair refused with the error code the spec names for it."""

from __future__ import annotations

import pytest

from server.subscriptions.states import Event, Status, transition

LEGAL = [
    ("incomplete", "first_payment", "active"),
    ("incomplete", "first_payment_lapsed", "canceled"),
    ("incomplete", "cancel_now", "canceled"),
    ("active", "renew", "active"),
    ("active", "invoice_paid", "active"),
    ("active", "payment_overdue", "past_due"),
    ("active", "pause", "paused"),
    ("active", "cancel_now", "canceled"),
    ("active", "schedule_cancel", "active"),
    ("active", "revoke_cancel", "active"),
    ("active", "period_end_cancel", "canceled"),
    ("active", "change_plan", "active"),
    ("past_due", "renew", "past_due"),
    ("past_due", "invoice_paid", "active"),
    ("past_due", "payment_overdue", "past_due"),
    ("past_due", "dunning_exhausted", "canceled"),
    ("past_due", "cancel_now", "canceled"),
    ("past_due", "schedule_cancel", "past_due"),
    ("past_due", "revoke_cancel", "past_due"),
    ("past_due", "period_end_cancel", "canceled"),
    ("paused", "resume", "active"),
    ("paused", "renew", "paused"),
    ("paused", "cancel_now", "canceled"),
]


@pytest.mark.parametrize(("status", "event", "after"), LEGAL, ids=[f"{s}-{e}" for s, e, _ in LEGAL])
def test_legal_move(status: str, event: str, after: str) -> None:
    assert transition(status, Event(event)) == after


def _expected_refusal(status: str, event: str) -> str:
    if status == "canceled":
        return "subscription_already_canceled"
    if (status, event) == ("paused", "pause"):
        return "subscription_already_paused"
    if event == "resume":
        return "subscription_not_paused"
    return "subscription_not_active"


ILLEGAL = [(s.value, e.value) for s in Status for e in Event
           if (s.value, e.value) not in {(a, b) for a, b, _ in LEGAL}]


@pytest.mark.parametrize(("status", "event"), ILLEGAL, ids=[f"{s}-{e}" for s, e in ILLEGAL])
def test_illegal_move_is_refused_with_the_specs_code(status: str, event: str) -> None:
    from server.subscriptions.states import UnexpectedState
    with pytest.raises(UnexpectedState) as refused:
        transition(status, Event(event))
    assert refused.value.reason == _expected_refusal(status, event)
    assert refused.value.code.name == "ABORTED"  # 409 through the facade


def test_the_table_has_exactly_the_rows_written_here() -> None:
    from server.subscriptions.states import TRANSITIONS
    assert {(s.value, e.value, t.value) for (s, e), t in TRANSITIONS.items()} == set(LEGAL)


def test_canceled_is_final() -> None:
    assert [e for e in Event if (("canceled", e.value) not in [(s, x) for s, x in ILLEGAL])] == []
