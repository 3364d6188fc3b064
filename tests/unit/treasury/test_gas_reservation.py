"""Who pays a treasury transaction's native-coin cost (server/treasury/gas.py): set aside before signing out of the
merchant's available coin at the paying address, then out of coin sent there by hand (what the chain holds beyond
every other leg of the ledger there), never out of paygate's fees; settled with the receipt, given back when the
transaction can never be mined. The chain's reading is given as the senders read it (`gas.Look`)."""

from __future__ import annotations

from decimal import Decimal

from server.ids import new_id
from server.treasury import gas
from server.treasury.ledger import postings
from server.treasury.ledger.models import Account
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.models import OutgoingStatus
from server.treasury.sweeps.models import Sweep, SweepStatus, SweepTransaction, SweepTxKind
from tests.unit.treasury.world import ETH, World, world  # noqa: F401

A = Account
FEES = Decimal("0.01")  # paygate's processing fee, held at the treasury


def scope(m: str) -> Scope:
    return Scope(m, False, ETH, "ETH-TEST")


def post(w: World, m: str, legs: dict[Holder, str]) -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            await postings.post(s, scope(m), "transfer", new_id("tx"), {h: Decimal(v) for h, v in legs.items()})
    w.run(go())


def received(w: World, m: str, address: str, available: str = "0", fees: str = "0") -> None:
    """Money that arrived at `address`: the merchant's available coin and paygate's fees."""
    post(w, m, {Holder(A.AVAILABLE, address): available, Holder(A.FEES, address): fees,
                Holder(A.INFLOW): str(-Decimal(available) - Decimal(fees))})


def looked(w: World, address: str, chain: Decimal) -> gas.Look:
    """What a sender reads before its transaction: the legs at `address`, counted, then the chain's coin there."""
    count = len([e for e in w.entries() if e.address == address and e.asset_id == ETH])
    return gas.Look(address, count, chain)


def reserve(w: World, m: str, payer: str, most: str, seen: gas.Look | None = None) -> tuple[str, bool]:
    tx_id = new_id("ttx")

    async def go() -> bool:
        async with w.db.transaction() as s:
            return await gas.reserve(s, gas.Cost(scope(m), payer, Decimal(most), 18, seen), tx_id)
    return tx_id, w.run(go())


def settle(w: World, m: str, tx_id: str, payer: str, paid: str) -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            await gas.settle(s, scope(m), tx_id, payer, Decimal(paid), {Holder(A.OUTFLOW): Decimal(paid)})
    w.run(go())


def at(w: World, address: str) -> dict[Account, Decimal]:
    async def go() -> dict[Account, Decimal]:
        async with w.db.read() as s:
            return (await postings.held_at(s, "ETH-TEST", address)).get(ETH, {})
    return {k: v for k, v in w.run(go()).items() if v != 0}


def test_a_cost_the_merchants_available_coin_covers_is_set_aside_out_of_it(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    received(world, m, t, available="0.005", fees=str(FEES))
    _, ok = reserve(world, m, t, "0.001")
    assert ok
    assert at(world, t) == {A.AVAILABLE: Decimal("0.004"), A.LOCKED: Decimal("0.001"), A.FEES: FEES}


def test_a_cost_nothing_of_the_merchants_covers_is_refused_and_paygates_fees_stay_whole(
        world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    received(world, m, t, fees=str(FEES))
    _, ok = reserve(world, m, t, "0.001", looked(world, t, FEES))  # the chain holds exactly paygate's fees
    assert not ok
    assert at(world, t) == {A.FEES: FEES}


def test_coin_sent_by_hand_pays_what_available_lacks_but_never_more_than_was_sent(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    received(world, m, t, available="0.0002", fees=str(FEES))
    chain = Decimal("0.0102") + Decimal("0.001")  # 0.001 sent by hand, never recorded
    _, ok = reserve(world, m, t, "0.0009", looked(world, t, chain))
    assert ok
    assert at(world, t) == {A.LOCKED: Decimal("0.0009"), A.GAS: Decimal("-0.0007"), A.FEES: FEES}
    _, again = reserve(world, m, t, "0.0004", looked(world, t, chain))  # 0.0003 of the hand-sent coin is left
    assert not again
    _, fits = reserve(world, m, t, "0.0003", looked(world, t, chain))
    assert fits and at(world, t)[A.GAS] == Decimal("-0.001")


def test_a_chain_reading_older_than_the_ledgers_last_leg_there_pays_nothing_by_hand(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    seen = looked(world, t, Decimal("0.002"))  # 0.002 sent by hand, as read
    received(world, m, t, fees=str(FEES))  # posted after the reading: the reading no longer tells what is unrecorded
    _, ok = reserve(world, m, t, "0.001", seen)
    assert not ok and at(world, t) == {A.FEES: FEES}


def test_a_native_sweep_on_its_way_into_the_treasury_is_not_coin_sent_by_hand(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t, deposit = world.treasury(m), world.deposit_address(m)
    received(world, m, deposit, available="0.099", fees="0.001")

    async def sweeping() -> None:  # signed and mined: on chain at the treasury, not yet posted
        async with world.db.transaction() as s:
            now = world.db.clock.now()
            sweep = Sweep(id=new_id("sw"), merchant_id=m, livemode=False, network="ETH-TEST", asset_id=ETH,
                          decimals=18, source_address=deposit, destination_address=t, amount=Decimal("0.1"),
                          fee_amount=Decimal("0.001"), status=SweepStatus.SENDING, created=now, updated=now)
            s.add(sweep)
            await s.flush()
            s.add(SweepTransaction(id=new_id("swtx"), sweep_id=sweep.id, kind=SweepTxKind.SWEEP, network="ETH-TEST",
                                   asset_id=ETH, source_address=deposit, destination_address=t, nonce=0,
                                   tx_hash="0x" + "1" * 64, raw="0x", amount_base=Decimal(99_000_000_000_000_000),
                                   status=OutgoingStatus.PENDING, created_at=now, updated_at=now))
    world.run(sweeping())
    _, ok = reserve(world, m, t, "0.001", looked(world, t, Decimal("0.099")))
    assert not ok and at(world, t) == {}


def test_the_receipt_pays_out_of_what_was_set_aside_and_gives_the_rest_back(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    received(world, m, t, available="0.0002", fees=str(FEES))
    tx_id, ok = reserve(world, m, t, "0.001", looked(world, t, Decimal("0.0112")))
    assert ok
    settle(world, m, tx_id, t, "0.0003")  # available first, then the coin sent by hand
    assert at(world, t) == {A.GAS: Decimal("-0.0001"), A.FEES: FEES}
    assert world.balances(m)[ETH][A.OUTFLOW] == Decimal("0.0003")


def test_a_transaction_that_can_never_be_mined_gives_everything_back(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    received(world, m, t, available="0.0002", fees=str(FEES))
    tx_id, _ = reserve(world, m, t, "0.001", looked(world, t, Decimal("0.0112")))

    async def lost() -> None:
        async with world.db.transaction() as s:
            await gas.release(s, scope(m), tx_id)
            await gas.release(s, scope(m), tx_id)  # twice: nothing more
    world.run(lost())
    assert at(world, t) == {A.AVAILABLE: Decimal("0.0002"), A.FEES: FEES}


def test_a_top_up_paid_by_hand_sent_coin_stays_gas_coin_at_the_deposit_address(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t, deposit = world.treasury(m), world.deposit_address(m)
    received(world, m, t, fees=str(FEES))
    tx_id, ok = reserve(world, m, t, "0.0003", looked(world, t, FEES + Decimal("0.001")))
    assert ok

    async def mined() -> None:
        async with world.db.transaction() as s:
            await gas.settle_top_up(s, scope(m), tx_id, t, deposit, Decimal("0.0002"), Decimal("0.00005"))
            # The token transfer's gas at the deposit address, out of the top-up: the rest is left there.
            await postings.network_fee(s, scope(m), "sweep", "sw_1", deposit, Decimal("0.00015"))
    world.run(mined())
    assert at(world, t) == {A.GAS: Decimal("-0.00025"), A.FEES: FEES}
    assert at(world, deposit) == {A.GAS: Decimal("0.00005")}  # the leftover goes back to who paid the top-up
    assert world.balances(m)[ETH].get(A.AVAILABLE, Decimal(0)) == 0  # never the merchant's available coin


def test_a_top_up_the_merchants_available_coin_paid_stays_its_available_coin(world: World) -> None:  # noqa: F811
    m = world.merchant()
    t, deposit = world.treasury(m), world.deposit_address(m)
    received(world, m, t, available="0.001", fees=str(FEES))
    tx_id, ok = reserve(world, m, t, "0.0003")
    assert ok

    async def mined() -> None:
        async with world.db.transaction() as s:
            await gas.settle_top_up(s, scope(m), tx_id, t, deposit, Decimal("0.0002"), Decimal("0.00005"))
    world.run(mined())
    assert at(world, t) == {A.AVAILABLE: Decimal("0.00075"), A.FEES: FEES}
    assert at(world, deposit) == {A.AVAILABLE: Decimal("0.0002")}


def test_a_payment_signed_again_after_losing_its_nonce_keeps_what_was_set_aside_for_it(
        world: World) -> None:  # noqa: F811
    m = world.merchant()
    t = world.treasury(m)
    received(world, m, t, available="0.002", fees=str(FEES))
    lost, ok = reserve(world, m, t, "0.001")
    assert ok
    again = new_id("ttx")

    async def signed_again() -> None:
        async with world.db.transaction() as s:
            await gas.carry(s, scope(m), lost, again)
            await gas.carry(s, scope(m), lost, again)  # twice: nothing more
    world.run(signed_again())
    assert at(world, t) == {A.AVAILABLE: Decimal("0.001"), A.LOCKED: Decimal("0.001"), A.FEES: FEES}
    settle(world, m, lost, t, "0")  # the lost one settles nothing: its reservation went with the payment
    assert at(world, t)[A.LOCKED] == Decimal("0.001")
    settle(world, m, again, t, "0.0004")
    assert at(world, t) == {A.AVAILABLE: Decimal("0.0016"), A.FEES: FEES}
