"""The invoice state table, written out by hand: each legal move, and every other move refused as invoice_not_open."""

from __future__ import annotations

import pytest

from server.invoices.states import Event, NotOpen, Status, transition

LEGAL = [("draft", "finalize", "open"), ("draft", "void", "void"), ("open", "pay", "paid"), ("open", "void", "void"),
         ("open", "mark_uncollectible", "uncollectible")]
ILLEGAL = [(s.value, e.value) for s in Status for e in Event if (s.value, e.value) not in {(a, b) for a, b, _ in LEGAL}]


@pytest.mark.parametrize(("status", "event", "after"), LEGAL, ids=[f"{s}-{e}" for s, e, _ in LEGAL])
def test_legal_move(status: str, event: str, after: str) -> None:
    assert transition(status, Event(event)) == after


@pytest.mark.parametrize(("status", "event"), ILLEGAL, ids=[f"{s}-{e}" for s, e in ILLEGAL])
def test_illegal_move_is_invoice_not_open(status: str, event: str) -> None:
    with pytest.raises(NotOpen) as refused:
        transition(status, Event(event))
    assert refused.value.reason == "invoice_not_open"
