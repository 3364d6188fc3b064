"""The sweep state machine against its moves, written out here by hand (DESIGN §15).

The table below is NOT derived from `server.treasury.sweeps.states.TRANSITIONS`: statuses are the strings stored in
`sweeps.status`, and each row is one move of the sweep job (a transaction signed, or ended), so a wrong, missing or
extra row in the product table fails here.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from server.treasury.sweeps.states import OPEN, Event, Status, UnexpectedState, allowed, move, next_status

STATUSES = ["pending", "funding", "sending", "succeeded", "failed"]
EVENTS = ["top_up_signed", "top_up_confirmed", "sweep_signed", "sweep_confirmed", "lost", "failed"]

LEGAL = {
    ("pending", "top_up_signed"): "funding",  # a token whose deposit address lacks gas
    ("pending", "sweep_signed"): "sending",  # the native coin, or a token whose address has the gas
    ("funding", "top_up_confirmed"): "funding",  # the top-up arrived: the sweep itself is next
    ("funding", "top_up_signed"): "funding",  # the top-up arrived, and the gas needed rose meanwhile
    ("funding", "sweep_signed"): "sending",
    ("funding", "lost"): "pending",  # the top-up's nonce went elsewhere: signed again
    ("funding", "failed"): "failed",  # the top-up reverted, or our cancel of it was mined
    ("sending", "sweep_confirmed"): "succeeded",
    ("sending", "lost"): "pending",  # the sweep's nonce went elsewhere: signed again
    ("sending", "failed"): "failed",
    # Admitted by today's guards (any open sweep with nothing in flight is signed; the transaction in flight decides
    # whatever step the sweep records), never made in a run: one transaction in flight, the sweep moved as it is signed.
    ("pending", "top_up_confirmed"): "pending",
    ("pending", "sweep_confirmed"): "succeeded",
    ("pending", "lost"): "pending",
    ("pending", "failed"): "failed",  # test_sweep_scan fails a sweep whose transaction it wrote by hand
    ("funding", "sweep_confirmed"): "succeeded",
    ("sending", "top_up_signed"): "funding",
    ("sending", "sweep_signed"): "sending",
    ("sending", "top_up_confirmed"): "sending",
}
ILLEGAL = [(s, e) for s in STATUSES for e in EVENTS if (s, e) not in LEGAL]


def test_the_statuses_and_events_are_the_stored_vocabulary() -> None:
    assert sorted(s.value for s in Status) == sorted(STATUSES)
    assert sorted(e.value for e in Event) == sorted(EVENTS)


def test_pending_funding_and_sending_are_open() -> None:
    assert [s.value for s in OPEN] == ["pending", "funding", "sending"]


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
    assert refused.value.reason == "sweep_unexpected_state"
    assert refused.value.code.name == "ABORTED"


@pytest.mark.parametrize("event", EVENTS)
def test_an_ended_sweep_takes_no_move(event: str) -> None:
    for ended in ("succeeded", "failed"):
        with pytest.raises(UnexpectedState):
            next_status(ended, Event(event))


def test_move_puts_the_row_in_the_next_status_with_its_facts_at_now() -> None:
    row = SimpleNamespace(status="sending", updated=1, tx_hash="")
    move(row, Event.SWEEP_CONFIRMED, {"tx_hash": "0xab"}, 7)
    assert (row.status, row.tx_hash, row.updated) == ("succeeded", "0xab", 7)
