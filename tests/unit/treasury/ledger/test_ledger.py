"""The ledger (DESIGN §15): postings written with their cause, every posting sums to zero, balances are sums."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from decimal import Decimal

import pytest

from server.treasury.ledger import postings
from server.treasury.ledger.models import Account
from server.treasury.ledger.postings import Holder, Scope
from tests.unit.treasury.world import ETH, USDT, World, world  # noqa: F401

A = Account


def _postings_balance(w: World) -> None:
    sums: dict[str, Decimal] = defaultdict(Decimal)
    for e in w.entries():
        assert isinstance(e.amount, Decimal)
        sums[e.posting_id] += e.amount
    assert sums and all(v == 0 for v in sums.values()), sums


def test_a_transfer_seen_is_pending_at_its_deposit_address(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "10.5")
    assert world.balances(m) == {USDT: {A.INFLOW: Decimal("-10.5"), A.PENDING: Decimal("10.5")}}
    assert {(e.account, e.address) for e in world.entries(m)} == {("inflow", ""), ("pending", address)}
    _postings_balance(world)


def test_confirmed_and_approved_is_available_less_the_processing_fee(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    t = world.transfer(address, "10.5")
    world.transfer(address, "10.5", "confirming", transfer_id=t)
    world.transfer(address, "10.5", "confirmed", transfer_id=t)  # AML still screening: still pending
    assert world.balances(m)[USDT][A.PENDING] == Decimal("10.5")
    world.transfer(address, "10.5", "confirmed", "approved", transfer_id=t)
    # tx_fee_percent 1: 0.105 of 10.5
    assert world.balances(m) == {USDT: {A.INFLOW: Decimal("-10.5"), A.AVAILABLE: Decimal("10.395"),
                                        A.FEES: Decimal("0.105")}}
    _postings_balance(world)


def test_aml_rejected_is_frozen(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    t = world.transfer(address, "7")
    world.transfer(address, "7", "confirmed", "rejected", transfer_id=t)
    assert world.balances(m) == {USDT: {A.INFLOW: Decimal("-7"), A.FROZEN: Decimal("7")}}


def test_a_reverted_transfer_leaves_nothing(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    t = world.transfer(address, "3")
    world.transfer(address, "3", "reverted", transfer_id=t)
    assert world.balances(m) == {USDT: {}}
    assert len(world.entries(m)) == 4  # nothing edited: the reversal is a posting of its own
    _postings_balance(world)


def test_the_same_state_announced_twice_posts_once(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    t = world.transfer(address, "2", "confirmed", "approved")
    before = len(world.entries(m))
    world.transfer(address, "2", "confirmed", "approved", transfer_id=t)
    assert len(world.entries(m)) == before


def test_native_amounts_stay_exact_to_the_wei(world: World) -> None:  # noqa: F811
    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "0.123456789012345678", "confirmed", "approved", asset_id=ETH)
    got = world.balances(m)[ETH]
    assert got[A.AVAILABLE] + got[A.FEES] == Decimal("0.123456789012345678")
    assert got[A.FEES] == Decimal("0.001234567890123457")  # 1%, rounded half up to the wei


def test_another_merchants_money_is_not_in_the_balance(world: World) -> None:  # noqa: F811
    m, other = world.merchant(), world.merchant()
    world.transfer(world.deposit_address(other), "5", "confirmed", "approved")
    assert world.balances(m) == {}


def test_a_refund_locks_then_sends_from_the_treasury(world: World) -> None:  # noqa: F811
    m = world.merchant()
    world.transfer(world.deposit_address(m), "10", "confirmed", "approved")
    r = world.refund(m, "4")
    treasury = world.treasury(m)
    assert world.balances(m)[USDT][A.AVAILABLE] == Decimal("5.9")
    assert world.balances(m)[USDT][A.LOCKED] == Decimal("4")
    assert {e.address for e in world.entries(m) if e.account == "locked"} == {treasury}
    world.refund(m, "4", "Processing", refund_id=r)
    assert world.balances(m)[USDT][A.LOCKED] == Decimal("4")
    world.refund(m, "4", "Success", refund_id=r)
    got = world.balances(m)[USDT]
    assert A.LOCKED not in got and got[A.OUTFLOW] == Decimal("4") and got[A.AVAILABLE] == Decimal("5.9")
    _postings_balance(world)


def test_a_failed_refund_gives_the_money_back(world: World) -> None:  # noqa: F811
    m = world.merchant()
    world.transfer(world.deposit_address(m), "10", "confirmed", "approved")
    r = world.refund(m, "4")
    world.refund(m, "4", "Failed", refund_id=r)
    got = world.balances(m)[USDT]
    assert got == {A.INFLOW: Decimal("-10"), A.AVAILABLE: Decimal("9.9"), A.FEES: Decimal("0.1")}


def test_an_unbalanced_posting_is_never_written(world: World) -> None:  # noqa: F811
    m = world.merchant()

    async def go() -> None:
        async with world.db.transaction() as s:
            await postings.post(s, Scope(m, False, USDT, "ETH-TEST"), "payout", "p1",
                              {Holder(A.AVAILABLE): Decimal("-1"), Holder(A.OUTFLOW): Decimal("0.5")})

    with pytest.raises(postings.Unbalanced):
        asyncio.run(go())
    assert world.entries(m) == []


def test_the_available_balance_is_what_is_available_in_that_asset_for_that_merchant_and_mode(
        world: World) -> None:  # noqa: F811
    m, other = world.merchant(), world.merchant()
    address = world.deposit_address(m)
    t = world.transfer(address, "10.5")
    world.transfer(address, "10.5", "confirmed", "approved", transfer_id=t)  # 10.395 available, the 1 % fee off
    world.transfer(address, "3")  # still pending: not available
    elsewhere = world.deposit_address(other)
    world.transfer(elsewhere, "5", "confirmed", "approved", transfer_id=world.transfer(elsewhere, "5"))

    async def go() -> tuple[Decimal, ...]:
        async with world.db.transaction() as s:
            return (await postings.available(s, m, False, USDT), await postings.available(s, m, False, USDT, lock=True),
                    await postings.available(s, m, True, USDT), await postings.available(s, m, False, ETH))

    assert world.run(go()) == (Decimal("10.395"), Decimal("10.395"), Decimal(0), Decimal(0))


def test_an_unbalanced_posting_is_refused_naming_its_cause_and_what_its_legs_sum_to(
        world: World) -> None:  # noqa: F811
    m = world.merchant()

    async def go() -> None:
        async with world.db.transaction() as s:
            await postings.post(s, Scope(m, False, USDT, "ETH-TEST"), "payout", "po_1",
                              {Holder(A.AVAILABLE): Decimal("-1"), Holder(A.OUTFLOW): Decimal("0.5")})

    with pytest.raises(postings.Unbalanced, match=r"^payout po_1: legs sum to -0\.5$"):
        asyncio.run(go())


def test_coin_an_address_pays_to_itself_leaves_its_available_balance_as_it_was(world: World) -> None:  # noqa: F811
    # A cancel or a gap filler is a 0-value transaction to the address itself: what it sends comes straight back.
    m = world.merchant()
    address = world.deposit_address(m)
    world.transfer(address, "10", "confirmed", "approved")  # 9.9 available, the 1 % fee off
    scope = Scope(m, False, USDT, "ETH-TEST")

    async def go() -> None:
        async with world.db.transaction() as s:
            await postings.pay_out_of(s, scope, "sweep", "sw_1", address, Decimal("2"),
                                      {Holder(A.AVAILABLE, address): Decimal("2")})

    asyncio.run(go())
    assert world.balances(m)[USDT][A.AVAILABLE] == Decimal("9.9")
