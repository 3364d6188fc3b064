"""The sweep job does not scan the ledger on each pass (issue 14): it looks only at places the ledger credited since
(a transfer approved there, funds given back there) or that a failed sweep left holding funds, and sums only those
places' legs (one SQL SUM … GROUP BY over them). A pass with nothing new reads no ledger rows at all."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest
from sqlmodel import select

from server.clock import now_of
from server.ids import new_id
from server.rails.base import Outcome, PayoutResult
from server.treasury.ledger.models import SweepDue
from server.treasury.sweeps import service as sweeps
from server.treasury.sweeps.models import Sweep, SweepStatus, SweepTransaction, SweepTxKind
from tests.unit.treasury.ledger.test_ledger_sums import statements
from tests.unit.treasury.world import USDT, World, world  # noqa: F401


def candidates(w: World) -> list[tuple[str, bool, str, str, str]]:
    return [c.key for c in asyncio.run(sweeps.candidates(w.rt))]


def claim_all(w: World) -> list[Sweep]:
    async def go() -> list[Sweep]:
        opened = []
        for found in await sweeps.candidates(w.rt):
            sweep = await sweeps.claim(w.rt, found)
            if sweep is not None:
                opened.append(sweep)
        return opened
    return asyncio.run(go())


def ledger_reads(w: World) -> list[str]:
    with statements(w) as seen:
        candidates(w)
    return [s for s in seen if "ledger_entries" in s]


def fail(w: World, sweep: Sweep) -> None:
    """The sweep's transaction signed, then its nonce went to our cancel: the sweep fails, its funds stay."""
    async def go() -> None:
        async with w.db.transaction() as s:
            now = now_of(s)
            tx = SweepTransaction(id=new_id("swtx"), sweep_id=sweep.id, kind=SweepTxKind.SWEEP, network=sweep.network,
                                  asset_id=sweep.asset_id, source_address=sweep.source_address,
                                  destination_address=sweep.destination_address, nonce=0, tx_hash="0x1", raw="0x",
                                  amount_base=Decimal(1), status="pending", created_at=now, updated_at=now)
            s.add(tx)
        await sweeps.SweepPayouts(w.rt).decided(PayoutResult(payout_id=tx.id, outcome=Outcome.FAILED,
                                                             reason="canceled"))
    asyncio.run(go())


def test_an_approved_transfer_makes_its_address_a_candidate_once(world: World) -> None:  # noqa: F811
    m = world.merchant()
    a, b = world.deposit_address(m), world.deposit_address(m)
    world.transfer(a, "10", "confirmed", "approved")
    world.transfer(b, "0.5", "confirmed", "approved")  # below the 1 USDT minimum
    world.transfer(b, "3", "confirmed", "")  # awaiting AML: pending, not available
    assert candidates(world) == [(m, False, "ETH-TEST", a, USDT)]
    [sweep] = claim_all(world)
    assert (sweep.source_address, sweep.amount) == (a, Decimal("10"))
    assert candidates(world) == []


def test_a_pass_with_nothing_new_reads_no_ledger_rows(world: World) -> None:  # noqa: F811
    m = world.merchant()
    for amount in ("10", "0.5", "4"):
        world.transfer(world.deposit_address(m), amount, "confirmed", "approved")
    assert len(claim_all(world)) == 2
    assert candidates(world) == []  # what was claimed or is dust is no longer looked at
    assert ledger_reads(world) == []


def test_funds_arriving_later_at_a_dust_address_are_looked_at_again(world: World) -> None:  # noqa: F811
    m = world.merchant()
    a = world.deposit_address(m)
    world.transfer(a, "0.5", "confirmed", "approved")
    assert candidates(world) == [] and candidates(world) == []
    world.transfer(a, "0.7", "confirmed", "approved")  # 1.2 less 1 % now: above the minimum
    assert candidates(world) == [(m, False, "ETH-TEST", a, USDT)]
    [sweep] = claim_all(world)
    assert sweep.amount == Decimal("1.2")


def test_funds_arriving_while_a_sweep_is_open_are_swept_after_it(world: World) -> None:  # noqa: F811
    m = world.merchant()
    a = world.deposit_address(m)
    world.transfer(a, "10", "confirmed", "approved")
    [first] = claim_all(world)
    world.transfer(a, "5", "confirmed", "approved")
    assert candidates(world) == []  # the open sweep holds the place
    assert claim_all(world) == []

    async def succeed() -> None:
        async with world.db.transaction() as s:
            sweep = await s.get(Sweep, first.id)
            assert sweep is not None
            sweep.status = SweepStatus.SUCCEEDED  # the ledger legs of a real success do not matter here
            s.add(sweep)
    asyncio.run(succeed())
    assert candidates(world) == [(m, False, "ETH-TEST", a, USDT)]


def test_a_failed_sweep_makes_its_address_a_candidate_again(world: World) -> None:  # noqa: F811
    m = world.merchant()
    a = world.deposit_address(m)
    world.transfer(a, "10", "confirmed", "approved")
    [sweep] = claim_all(world)
    assert candidates(world) == []
    fail(world, sweep)

    async def status() -> str:
        async with world.db.read() as s:
            return (await s.exec(select(Sweep.status).where(Sweep.id == sweep.id))).one()
    assert asyncio.run(status()) == SweepStatus.FAILED
    assert candidates(world) == [(m, False, "ETH-TEST", a, USDT)]
    [again] = claim_all(world)
    assert again.amount == Decimal("10")


def test_places_waiting_for_a_treasury_never_hold_up_other_merchants_sweeps(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A merchant whose treasury is not available (live mode while the live mnemonic is not configured) keeps its
    places in the queue, one row each and at the back: a pass looks at a batch of the oldest rows, and more of
    such places than a batch held back every later credit of every merchant for good."""
    stuck = world.merchant()
    real = sweeps.treasury_of

    async def treasury_of(rt: Any, session: Any, network: str, merchant_id: str, livemode: bool) -> str:
        return "" if merchant_id == stuck else await real(rt, session, network, merchant_id, livemode)

    monkeypatch.setattr(sweeps, "treasury_of", treasury_of)
    monkeypatch.setattr(sweeps, "DUE_BATCH", 3)
    waiting = [world.deposit_address(stuck) for _ in range(3)]
    for address in waiting:
        world.transfer(address, "10", "confirmed", "approved")
        world.transfer(address, "5", "confirmed", "approved")  # a second credit: a second row for the place
    paying = world.merchant()
    a = world.deposit_address(paying)
    world.transfer(a, "10", "confirmed", "approved")
    for _ in range(4):  # 7 rows, 3 a pass
        found = candidates(world)
        if found:
            break
    assert found == [(paying, False, "ETH-TEST", a, USDT)]
    assert {row.address for row in due_rows(world)} >= set(waiting)  # kept, to be swept once a treasury exists


def due_rows(w: World) -> list[SweepDue]:
    async def go() -> list[SweepDue]:
        async with w.db.read() as s:
            return list(await s.exec(select(SweepDue)))
    return asyncio.run(go())
