"""The ledger's reads sum only their own scope: an EVM address is the same on every EVM network and holds several
assets, and a refund and a transfer may share a cause id, so each read filters by network, asset, merchant,
mode and cause type (DESIGN §15)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from server.treasury.ledger import postings
from server.treasury.ledger.models import Account
from server.treasury.ledger.postings import Holder, Scope
from tests.unit.treasury.world import ETH, USDT, World, world  # noqa: F401

A = Account
ADDRESS = "0x" + "ef" * 20


def credit(w: World, scope: Scope, amount: str, cause_type: str = "transfer", cause_id: str = "t1") -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            await postings.post(s, scope, cause_type, cause_id,
                                {Holder(A.INFLOW): -Decimal(amount), Holder(A.AVAILABLE, ADDRESS): Decimal(amount)})
    asyncio.run(go())


def test_a_sum_at_an_address_counts_only_its_network_asset_merchant_and_mode(world: World) -> None:  # noqa: F811
    m, other = world.merchant(), world.merchant()
    mine = Scope(m, False, USDT, "ETH-TEST")
    credit(world, mine, "10")
    credit(world, Scope(m, False, USDT, "BSC-TEST"), "3")
    credit(world, Scope(m, False, ETH, "ETH-TEST"), "5")
    credit(world, Scope(other, False, USDT, "ETH-TEST"), "7")
    credit(world, Scope(m, True, USDT, "ETH-TEST"), "11")

    async def go() -> Decimal:
        async with world.db.read() as s:
            return await postings.sum_at(s, mine, ADDRESS, A.AVAILABLE)
    assert asyncio.run(go()) == Decimal("10")


def test_what_a_cause_holds_is_of_that_cause_type_only(world: World) -> None:  # noqa: F811
    m = world.merchant()
    scope = Scope(m, False, USDT, "ETH-TEST")
    credit(world, scope, "10", "transfer", "same")
    credit(world, scope, "4", "refund", "same")

    async def go() -> dict[Holder, Decimal]:
        async with world.db.read() as s:
            return await postings.held(s, "transfer", "same")
    assert asyncio.run(go()) == {Holder(A.AVAILABLE, ADDRESS): Decimal("10"), Holder(A.INFLOW): Decimal("-10")}


def test_what_an_address_holds_is_on_that_network_only(world: World) -> None:  # noqa: F811
    m = world.merchant()
    credit(world, Scope(m, False, USDT, "ETH-TEST"), "10")
    credit(world, Scope(m, False, USDT, "BSC-TEST"), "3")

    async def go() -> dict[str, dict[Account, Decimal]]:
        async with world.db.read() as s:
            return await postings.held_at(s, "ETH-TEST", ADDRESS)
    assert asyncio.run(go()) == {USDT: {A.AVAILABLE: Decimal("10")}}


def test_balances_are_of_one_mode(world: World) -> None:  # noqa: F811
    m = world.merchant()
    credit(world, Scope(m, False, USDT, "ETH-TEST"), "10")
    credit(world, Scope(m, True, USDT, "ETH-TEST"), "11")

    async def go() -> dict[str, dict[Account, Decimal]]:
        async with world.db.read() as s:
            return await postings.balances(s, m, False)
    assert asyncio.run(go())[USDT][A.AVAILABLE] == Decimal("10")
