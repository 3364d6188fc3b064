"""`paygate treasury backfill-ledger` (server/treasury/backfill.py): money that moved before the ledger existed
(migration 0016) gets its opening entries through the ledger's normal posting, so an upgraded database's balance is
right; a second run posts nothing."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import delete

from server.treasury.backfill import Backfilled, backfill
from server.treasury.models import Account, LedgerEntry
from tests.unit.treasury.world import ETH, USDT, World, world  # noqa: F401


def _forget_the_ledger(w: World) -> None:
    """A database from before migration 0016: the money is there, its ledger rows are not."""
    async def go() -> None:
        async with w.db.transaction() as s:
            await s.exec(delete(LedgerEntry))
    w.run(go())


def _backfill(w: World) -> Backfilled:
    done: Backfilled = w.run(backfill(w.rt))
    return done


def _money(w: World) -> str:
    """A merchant with confirmed and approved payments in two assets and a mined refund."""
    m = w.merchant()
    w.transfer(w.deposit_address(m), "10", "confirmed", "approved")
    w.transfer(w.deposit_address(m), "0.5", "confirmed", "approved", asset_id=ETH)
    refund = w.refund(m, "4")
    w.refund(m, "4", "Processing", refund)
    w.refund(m, "4", "Success", refund)
    return m


def test_backfill_restores_the_balance_of_money_from_before_the_ledger(world: World) -> None:  # noqa: F811
    m = _money(world)
    before = world.balances(m)
    _forget_the_ledger(world)
    assert world.balances(m) == {}
    assert _backfill(world) == Backfilled(transfers=2, refunds=1)
    assert world.balances(m) == before


def test_a_second_backfill_posts_nothing(world: World) -> None:  # noqa: F811
    m = _money(world)
    _forget_the_ledger(world)
    _backfill(world)
    entries = len(world.entries())
    assert _backfill(world) == Backfilled(transfers=0, refunds=0)
    assert len(world.entries()) == entries and world.balances(m)[USDT][Account.AVAILABLE] == Decimal("5.9")


def test_backfill_leaves_money_the_ledger_already_holds_alone(world: World) -> None:  # noqa: F811
    m = _money(world)
    entries = len(world.entries(m))
    assert _backfill(world) == Backfilled(transfers=0, refunds=0)
    assert len(world.entries(m)) == entries


def test_unconfirmed_or_rejected_transfers_are_not_backfilled(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "3")
    world.transfer(address, "2", "confirmed", "rejected")
    _forget_the_ledger(world)
    assert _backfill(world) == Backfilled(transfers=0, refunds=0)
    assert world.balances(m) == {}
