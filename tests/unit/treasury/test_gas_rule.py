"""The rule for network fees the treasury pays (issue 14): gas never takes the merchant's available balance below zero.
What the merchant's available native coin at the paying address covers comes out of it; the rest comes out of that
address's own `gas` holder (coin the treasury spent that the ledger never saw arrive: funds sent by hand and not
recorded). Every leg stays at the address, so reconciliation sees the same sum. Recording a funding pays that
shortfall back first, and only the rest becomes available."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from server.treasury.ledger import postings
from server.treasury.ledger.models import Account
from server.treasury.ledger.postings import Holder, Scope
from tests.unit.treasury.world import ETH, World, world  # noqa: F401

A = Account


def scope(m: str) -> Scope:
    return Scope(m, False, ETH, "ETH-TEST")


def give(w: World, m: str, address: str, amount: str) -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            await postings.post(s, scope(m), "transfer", "t1", {Holder(A.AVAILABLE, address): Decimal(amount),
                                                             Holder(A.INFLOW): -Decimal(amount)})
    asyncio.run(go())


def gas(w: World, m: str, payer: str, amount: str) -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            await postings.network_fee(s, scope(m), "network_fee", "rtx_1", payer, Decimal(amount))
    asyncio.run(go())


def fund(w: World, m: str, treasury: str, amount: str, cause: str = "0xabc:-1") -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            await postings.funded(s, scope(m), cause, treasury, Decimal(amount))
    asyncio.run(go())


def at(w: World, address: str) -> dict[Account, Decimal]:
    async def go() -> dict[Account, Decimal]:
        async with w.db.read() as s:
            return (await postings.held_at(s, "ETH-TEST", address)).get(ETH, {})
    return {k: v for k, v in asyncio.run(go()).items() if v != 0}


def test_gas_covered_by_the_available_balance_comes_out_of_it(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    give(world, m, t, "0.01")
    gas(world, m, t, "0.001")
    assert world.balances(m)[ETH] == {A.AVAILABLE: Decimal("0.009"), A.INFLOW: Decimal("-0.01"),
                                      A.OUTFLOW: Decimal("0.001")}


def test_gas_from_a_treasury_funded_by_hand_never_takes_available_below_zero(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    gas(world, m, t, "0.001")
    assert world.balances(m)[ETH].get(A.AVAILABLE, Decimal(0)) == 0
    assert at(world, t) == {A.GAS: Decimal("-0.001")}  # what the chain lost there, all the same


def test_gas_partly_covered_takes_available_to_zero_and_the_rest_from_the_gas_holder(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    give(world, m, t, "0.0004")
    gas(world, m, t, "0.001")
    assert at(world, t) == {A.GAS: Decimal("-0.0006")}
    assert world.balances(m)[ETH].get(A.AVAILABLE, Decimal(0)) == 0


def test_available_elsewhere_does_not_pay_the_treasurys_gas(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t, deposit = world.treasury(m), world.deposit_address(m)
    give(world, m, deposit, "0.5")  # not swept yet: the treasury cannot spend it
    gas(world, m, t, "0.001")
    assert at(world, t) == {A.GAS: Decimal("-0.001")}
    assert world.balances(m)[ETH][A.AVAILABLE] == Decimal("0.5")


def test_a_recorded_funding_pays_the_shortfall_back_first(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    gas(world, m, t, "0.001")
    fund(world, m, t, "0.01")
    assert at(world, t) == {A.AVAILABLE: Decimal("0.009")}
    fund(world, m, t, "0.01")  # the same funding again: nothing more
    assert at(world, t) == {A.AVAILABLE: Decimal("0.009")}
    fund(world, m, t, "0.002", cause="0xdef:-1")
    assert at(world, t) == {A.AVAILABLE: Decimal("0.011")}


def test_a_funding_smaller_than_the_shortfall_only_reduces_it(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    gas(world, m, t, "0.003")
    fund(world, m, t, "0.001")
    assert at(world, t) == {A.GAS: Decimal("-0.002")}
    assert world.balances(m)[ETH].get(A.AVAILABLE, Decimal(0)) == 0
