"""A posting marks a deposit address due for a sweep exactly when it credits money a sweep moves there (DESIGN §15):
available or fees, at an address, by a positive amount. Its rows carry their kinds' id prefixes (lp_, le_, sd_)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from sqlmodel import select

from server.treasury.ledger import postings
from server.treasury.ledger.models import Account, LedgerEntry, SweepDue
from server.treasury.ledger.postings import Holder, Scope
from tests.unit.treasury.world import USDT, World, world  # noqa: F401

A = Account
ADDRESS = "0x" + "ab" * 20
OTHER = "0x" + "cd" * 20


def post(w: World, m: str, legs: dict[Holder, str]) -> str | None:
    async def go() -> str | None:
        async with w.db.transaction() as s:
            return await postings.post(s, Scope(m, False, USDT, "ETH-TEST"), "transfer", "t1",
                                     {h: Decimal(v) for h, v in legs.items()})
    return asyncio.run(go())


def due_rows(w: World) -> list[SweepDue]:
    async def go() -> list[SweepDue]:
        async with w.db.read() as s:
            return list(await s.exec(select(SweepDue)))
    return asyncio.run(go())


def entries(w: World) -> list[LedgerEntry]:
    async def go() -> list[LedgerEntry]:
        async with w.db.read() as s:
            return list(await s.exec(select(LedgerEntry)))
    return asyncio.run(go())


def test_money_made_available_at_an_address_makes_it_due(world: World) -> None:  # noqa: F811
    m = world.merchant()
    post(world, m, {Holder(A.PENDING, ADDRESS): "-10", Holder(A.AVAILABLE, ADDRESS): "10"})
    assert [(d.merchant_id, d.livemode, d.network, d.address, d.asset_id) for d in due_rows(world)] == [
        (m, False, "ETH-TEST", ADDRESS, USDT)]


def test_fees_credited_at_an_address_make_it_due(world: World) -> None:  # noqa: F811
    m = world.merchant()
    post(world, m, {Holder(A.PENDING, ADDRESS): "-1", Holder(A.FEES, ADDRESS): "1"})
    assert [d.address for d in due_rows(world)] == [ADDRESS]


def test_money_leaving_available_does_not_make_the_address_due(world: World) -> None:  # noqa: F811
    m = world.merchant()
    post(world, m, {Holder(A.AVAILABLE, ADDRESS): "-4", Holder(A.LOCKED, ADDRESS): "4"})
    assert due_rows(world) == []


def test_pending_and_frozen_money_do_not_make_an_address_due(world: World) -> None:  # noqa: F811
    m = world.merchant()
    post(world, m, {Holder(A.INFLOW): "-10", Holder(A.PENDING, ADDRESS): "10"})
    post(world, m, {Holder(A.PENDING, ADDRESS): "-10", Holder(A.FROZEN, ADDRESS): "10"})
    assert due_rows(world) == []


def test_available_money_outside_any_address_is_never_due(world: World) -> None:  # noqa: F811
    m = world.merchant()
    post(world, m, {Holder(A.INFLOW): "-3", Holder(A.AVAILABLE): "3"})
    assert due_rows(world) == []


def test_each_credited_address_is_due_once(world: World) -> None:  # noqa: F811
    m = world.merchant()
    post(world, m, {Holder(A.PENDING, ADDRESS): "-10", Holder(A.AVAILABLE, ADDRESS): "9.9",
                    Holder(A.FEES, ADDRESS): "0.1", Holder(A.INFLOW): "-5", Holder(A.AVAILABLE, OTHER): "5"})
    assert sorted(d.address for d in due_rows(world)) == sorted([ADDRESS, OTHER])


def test_a_posting_its_legs_and_its_sweep_mark_carry_their_kinds_prefixes(world: World) -> None:  # noqa: F811
    m = world.merchant()
    posting = post(world, m, {Holder(A.PENDING, ADDRESS): "-2", Holder(A.AVAILABLE, ADDRESS): "2"})
    assert posting is not None and posting.startswith("lp_")
    legs = entries(world)
    assert len(legs) == 2 and all(e.id.startswith("le_") and e.posting_id == posting for e in legs)
    assert [d.id[:3] for d in due_rows(world)] == ["sd_"]
