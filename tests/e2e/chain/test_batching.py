"""A watcher pass writes the transfers of a batch of blocks, and screens them, in a number of statements that does not
grow with the number of transfers (issue 13: the watcher's database cost per transfer)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

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


def send(chain, rig: Rig, n: int, sender: int = 1) -> None:
    for _ in range(n):
        address = rig.watch(from_block=chain.head())
        chain.send_eth(sender, address, 10**15)


def pass_statements(chain, rig: Rig) -> list[str]:
    with statements() as seen:
        rig.run_pass()
    return seen


def test_recording_confirmed_transfers_takes_as_many_statements_for_eight_as_for_two(chain, rig):
    rig.run_pass()  # the cursor exists and has caught up
    send(chain, rig, 2)
    chain.mine(THRESHOLD)
    two = pass_statements(chain, rig)
    send(chain, rig, 8)
    chain.mine(THRESHOLD)
    eight = pass_statements(chain, rig)
    assert len(rig.transfers()) == 10 and all(t.aml_status == "approved" for t in rig.transfers())
    assert eight == two


def test_confirming_open_transfers_takes_as_many_statements_for_eight_as_for_two(chain, rig):
    rig.run_pass()
    send(chain, rig, 2)
    rig.run_pass()  # recorded unconfirmed
    chain.mine(THRESHOLD)
    two = pass_statements(chain, rig)
    send(chain, rig, 8)
    rig.run_pass()
    chain.mine(THRESHOLD)
    eight = pass_statements(chain, rig)
    assert all((t.status, t.aml_status) == ("confirmed", "approved") for t in rig.transfers())
    assert eight == two


def test_async_screening_decides_eight_pending_checks_in_as_many_statements_as_two(chain, database_url, heard):
    rig = make_rig(chain, database_url, heard, mode="async")
    try:
        rig.run_pass()
        send(chain, rig, 2, DENIED_SENDER)
        chain.mine(THRESHOLD)
        rig.run_pass()  # confirmed, checks pending
        two = pass_statements(chain, rig)
        send(chain, rig, 8, DENIED_SENDER)
        chain.mine(THRESHOLD)
        rig.run_pass()
        eight = pass_statements(chain, rig)
        assert all(t.aml_status == "rejected" for t in rig.transfers())
        assert eight == two
    finally:
        rig.close()
