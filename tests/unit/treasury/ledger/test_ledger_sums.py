"""The ledger's sums are SQL aggregates (SUM … GROUP BY, run by the database) and exact on both databases: SQLite keeps
the amounts as decimal strings and sums them with its registered `decimal_sum`, PostgreSQL sums NUMERIC."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

from server.treasury.ledger import postings
from server.treasury.ledger.models import Account
from server.treasury.ledger.postings import Holder, Scope
from tests.unit.treasury.world import ETH, World, world  # noqa: F401

A = Account
# Each of these loses its last digits as a float, and so would their sum.
AMOUNTS = [Decimal("123456789012345678.123456789012345678"), Decimal("0.000000000000000001"),
           Decimal("0.1"), Decimal("0.2"), Decimal("999999999999999999.999999999999999999")]
TOTAL = Decimal("1123456789012345678.423456789012345678")  # written out: Python's default context keeps 28 digits


def _post(w: World, merchant_id: str, address: str, amounts: list[Decimal]) -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            for i, amount in enumerate(amounts):
                await postings.post(s, Scope(merchant_id, False, ETH, "ETH-TEST"), "payout", f"p{i}",
                                  {Holder(A.AVAILABLE, address): amount, Holder(A.INFLOW): amount.copy_negate()})
    asyncio.run(go())


@contextmanager
def statements(w: World) -> Iterator[list[str]]:
    """The SQL the reader runs inside the block."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    engine = w.db._reader.sync_engine
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


def test_balances_are_exact_to_the_last_digit_of_large_amounts(world: World) -> None:  # noqa: F811
    m = world.merchant()
    _post(world, m, world.treasury(m), AMOUNTS)
    got = world.balances(m)[ETH]
    assert got[A.AVAILABLE] == TOTAL
    assert got[A.INFLOW] == TOTAL.copy_negate()


def test_balances_are_one_grouped_sum_run_by_the_database(world: World) -> None:  # noqa: F811
    m = world.merchant()
    _post(world, m, world.treasury(m), AMOUNTS)
    with statements(world) as seen:
        world.balances(m)
    query = next(s for s in seen if "ledger_entries" in s).lower()
    assert "group by" in query and ("sum(" in query), query


def test_what_sits_at_an_address_is_a_grouped_sum_and_exact(world: World) -> None:  # noqa: F811
    m = world.merchant()
    treasury = world.treasury(m)
    _post(world, m, treasury, AMOUNTS)

    async def go() -> dict[str, dict[Account, Decimal]]:
        async with world.db.read() as s:
            return await postings.held_at(s, "ETH-TEST", treasury)

    with statements(world) as seen:
        got = asyncio.run(go())
    assert got == {ETH: {A.AVAILABLE: TOTAL}}
    assert "group by" in next(s for s in seen if "ledger_entries" in s).lower()
