"""A watcher pass writes the transfers of a batch of blocks, and screens them, in a number of statements that does not
grow with the number of transfers (issue 13: the watcher's database cost per transfer).

The rigs here run on a set clock that moves one second before each pass and stands still during it, or straddles a
second on purpose. A pass whose rows straddled a second once cost the next pass more statements: landing in the
second some rows were written in, it left `updated_at` out of their UPDATE only, and the ORM sent rows of different
column sets as two or three statements (2 UPDATEs more, seen once in CI on PostgreSQL). `ChainTransfer.stamp` always
writes it now; the straddling tests fail without that.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from tests.clock import SetClock
from tests.e2e.chain.conftest import DENIED_SENDER, make_rig
from tests.e2e.chain.rig import Rig

THRESHOLD = 3  # the dev chain's confirmations
TABLES = ("chain_transfers", "aml_checks")


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every statement (an executemany counts once) that touches the transfers or their AML checks, any engine."""
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if any(table in statement for table in TABLES):
            seen.append(statement.split(None, 1)[0].upper())

    event.listen(sa.engine.Engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(sa.engine.Engine, "before_cursor_execute", count)


class PassClock(SetClock):
    """A second per pass: fixed during a pass, one second on before the next; or, while `straddling`, a pass whose
    reads alternate between its second and the next, three reads at a time, as a pass across a second boundary."""

    def __init__(self) -> None:
        super().__init__(SetClock().now())
        self._reads: int | None = None

    def tick(self) -> None:
        self.at(super().now() + 1)

    @contextmanager
    def straddling(self) -> Iterator[None]:
        self._reads = 0
        try:
            yield
        finally:
            self._reads = None

    def now(self) -> int:
        second = super().now()
        if self._reads is None:
            return second
        self._reads += 1
        return second + (self._reads // 3) % 2


def run_pass(rig: Rig, clock: PassClock) -> None:
    clock.tick()
    rig.run_pass()


@pytest.fixture
def clock() -> PassClock:
    return PassClock()


@pytest.fixture
def rig(chain, database_url, heard, clock) -> Iterator[Rig]:
    r = make_rig(chain, database_url, heard, clock=clock)
    yield r
    r.close()


def send(chain, rig: Rig, n: int, sender: int = 1) -> None:
    for _ in range(n):
        address = rig.watch(from_block=chain.head())
        chain.send_eth(sender, address, 10**15)


def pass_statements(rig: Rig, clock: PassClock) -> list[str]:
    clock.tick()
    with statements() as seen:
        rig.run_pass()
    return seen


def test_recording_confirmed_transfers_takes_as_many_statements_for_eight_as_for_two(chain, rig, clock):
    run_pass(rig, clock)  # the cursor exists and has caught up
    send(chain, rig, 2)
    chain.mine(THRESHOLD)
    two = pass_statements(rig, clock)
    send(chain, rig, 8)
    chain.mine(THRESHOLD)
    eight = pass_statements(rig, clock)
    assert len(rig.transfers()) == 10 and all(t.aml_status == "approved" for t in rig.transfers())
    assert eight == two


def test_confirming_open_transfers_takes_as_many_statements_for_eight_as_for_two(chain, rig, clock):
    run_pass(rig, clock)
    send(chain, rig, 2)
    run_pass(rig, clock)  # recorded unconfirmed
    chain.mine(THRESHOLD)
    two = pass_statements(rig, clock)
    send(chain, rig, 8)
    run_pass(rig, clock)
    chain.mine(THRESHOLD)
    eight = pass_statements(rig, clock)
    assert all((t.status, t.aml_status) == ("confirmed", "approved") for t in rig.transfers())
    assert eight == two


def test_async_screening_decides_eight_pending_checks_in_as_many_statements_as_two(chain, database_url, heard,
                                                                                   clock):
    rig = make_rig(chain, database_url, heard, mode="async", clock=clock)
    try:
        run_pass(rig, clock)
        send(chain, rig, 2, DENIED_SENDER)
        chain.mine(THRESHOLD)
        run_pass(rig, clock)  # confirmed, checks pending
        two = pass_statements(rig, clock)
        send(chain, rig, 8, DENIED_SENDER)
        chain.mine(THRESHOLD)
        run_pass(rig, clock)
        eight = pass_statements(rig, clock)
        assert all(t.aml_status == "rejected" for t in rig.transfers())
        assert eight == two
    finally:
        rig.close()


def test_verdicts_on_transfers_recorded_across_a_second_take_as_many_statements_as_within_one(
        chain, database_url, heard, clock):
    rig = make_rig(chain, database_url, heard, mode="async", clock=clock)
    try:
        run_pass(rig, clock)
        send(chain, rig, 2, DENIED_SENDER)
        chain.mine(THRESHOLD)
        run_pass(rig, clock)
        within = pass_statements(rig, clock)
        send(chain, rig, 8, DENIED_SENDER)
        chain.mine(THRESHOLD)
        clock.tick()
        with clock.straddling():
            rig.run_pass()  # confirmed, checks pending: recorded in two seconds, the verdicts land in the later
        across = pass_statements(rig, clock)
        assert all(t.aml_status == "rejected" for t in rig.transfers())
        assert across == within
    finally:
        rig.close()


def test_confirming_transfers_recorded_across_a_second_takes_as_many_statements_as_within_one(chain, rig, clock):
    run_pass(rig, clock)
    send(chain, rig, 2)
    run_pass(rig, clock)
    chain.mine(THRESHOLD)
    within = pass_statements(rig, clock)
    send(chain, rig, 8)
    clock.tick()
    with clock.straddling():
        rig.run_pass()  # recorded unconfirmed, in two seconds
    chain.mine(THRESHOLD)
    across = pass_statements(rig, clock)
    assert all((t.status, t.aml_status) == ("confirmed", "approved") for t in rig.transfers())
    assert across == within
