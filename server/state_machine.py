"""The mechanism every state machine of paygate shares: a table of legal moves and one function that applies it.

Each resource keeps its own statuses, events and table (`server/<resource>/states.py`); a move missing from the
table is refused with that resource's `UnexpectedState` (409).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, TypeVar

from server.errors import Conflict

S = TypeVar("S", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)


class UnexpectedState(Conflict):
    noun = "object"

    def __init__(self, status: str, event: str) -> None:
        super().__init__(f"a {self.noun} in status {status} cannot take {str(event).replace('_', ' ')}")
        self.status = status
        self.event = event


def apply(table: dict[tuple[S, E], S], statuses: type[S], refusal: type[UnexpectedState],
          status: str, event: E) -> S:
    """The status after `event`, or `refusal`."""
    try:
        return table[(statuses(status), event)]
    except (KeyError, ValueError):
        raise refusal(status, event.value) from None


def enter(row: Any, status: StrEnum, facts: Mapping[str, object], now: int) -> None:
    """Puts `row` (a resource with `status` and `updated`) in `status` with the facts that go with the move, at
    `now` (the runtime's clock, read by the caller from its unit of work)."""
    row.status = status
    for name, value in facts.items():
        setattr(row, name, value)
    row.updated = now
