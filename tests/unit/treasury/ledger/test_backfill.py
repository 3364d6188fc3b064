"""`paygate treasury backfill-ledger` (server/treasury/ledger/backfill.py): money that moved before the ledger existed
(migration 0016) gets its opening entries through the ledger's normal posting, so an upgraded database's balance is
right; a second run posts nothing."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import delete

from server.treasury.ledger.backfill import Backfilled, backfill
from server.treasury.ledger.models import Account, LedgerEntry
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


def m_of(w: World, refund_id: str) -> str:
    from server.refunds.models import Refund

    async def go() -> str:
        async with w.db.read() as s:
            refund = await s.get(Refund, refund_id)
            assert refund is not None
            return refund.merchant_id
    return w.run(go())  # type: ignore[no-any-return]


def _refund_gas(w: World, refund_id: str, asset_id: str, status: str, fee_wei: int, nonce: int) -> str:
    """The refund's transaction as the sender leaves it once mined (`fee_wei`: the receipt's gas)."""
    from server.ids import new_id
    from server.refunds.models import RefundTransaction

    source = w.treasury(m_of(w, refund_id))

    async def go() -> str:
        async with w.db.transaction() as s:
            now = w.db.clock.now()
            tx = RefundTransaction(id=new_id("rtx"), refund_id=refund_id, network="ETH-TEST",
                                   source_address=source,
                                   destination_address="0x" + "b" * 40, nonce=nonce,
                                   tx_hash="0x" + new_id("h")[2:], raw="0x", amount_base=Decimal(1), decimals=6,
                                   asset_id=asset_id, status=status, fee_wei=Decimal(fee_wei), created_at=now,
                                   updated_at=now)
            s.add(tx)
            return tx.id
    return w.run(go())  # type: ignore[no-any-return]


def test_the_gas_of_token_refunds_and_of_cancelled_refunds_from_before_the_ledger_is_posted(
        world: World) -> None:  # noqa: F811
    m = world.merchant()
    treasury = world.treasury(m)
    token = world.refund(m, "4")
    world.refund(m, "4", "Success", token)
    _refund_gas(world, token, USDT, "confirmed", 3 * 10**14, 0)  # a token's gas, paid apart in ETH
    cancelled = world.refund(m, "0.1", asset_id=ETH)
    world.refund(m, "0.1", "Failed", cancelled, asset_id=ETH)
    _refund_gas(world, cancelled, ETH, "failed", 10**14, 1)  # our cancel was mined: its gas was paid
    native = world.refund(m, "0.2", asset_id=ETH)
    world.refund(m, "0.2", "Success", native, asset_id=ETH)
    _refund_gas(world, native, ETH, "confirmed", 2 * 10**14, 2)  # inside the refund's amount: not posted again
    _forget_the_ledger(world)
    assert _backfill(world) == Backfilled(transfers=0, refunds=2, network_fees=2)
    eth = world.balances(m)[ETH]
    assert eth[Account.OUTFLOW] == Decimal("0.2") + Decimal("0.0004")
    assert eth.get(Account.AVAILABLE, Decimal(0)) + eth.get(Account.GAS, Decimal(0)) == -Decimal("0.2004")
    assert {e.address for e in world.entries(m) if e.account == Account.GAS} <= {treasury}
    entries = len(world.entries())
    _backfill(world)
    assert len(world.entries()) == entries
