"""Which Pending chain refunds the refund job takes in a pass (server/refunds/payout_job.py): the oldest first, but
those of a merchant whose refunds waited for their gas at the last pass after every other merchant's, so a merchant
short of gas never holds the others' refunds back."""

from __future__ import annotations

from sqlmodel import col, select

from server.refunds import payout_job
from server.refunds.models import Refund
from tests.unit.treasury.world import ETH, World, world  # noqa: F401


def batch(w: World, waiting: set[payout_job.Waiter]) -> list[str]:
    async def go() -> list[str]:
        async with w.db.read() as s:
            return [r.id for r in await s.exec(payout_job._new_refunds(waiting, payout_job._natives(w.rt.catalogue)))]
    return w.run(go())  # type: ignore[no-any-return]


def changed(w: World, refund_id: str, **fields: object) -> None:
    async def go() -> None:
        async with w.db.transaction() as s:
            row = await s.get(Refund, refund_id)
            assert row is not None
            for name, value in fields.items():
                setattr(row, name, value)
            s.add(row)
    w.run(go())


def oldest_first(w: World) -> list[str]:
    async def go() -> list[str]:
        async with w.db.read() as s:
            return list(await s.exec(select(Refund.id).order_by(col(Refund.sort_key))))
    return w.run(go())  # type: ignore[no-any-return]


def test_pending_refunds_are_taken_oldest_first(world: World) -> None:  # noqa: F811
    a, b = world.merchant(), world.merchant()
    made = [world.refund(m, "1") for m in (a, b, a, b)]
    assert batch(world, set()) == made == oldest_first(world)


def test_a_merchant_whose_refunds_waited_for_gas_comes_after_the_others(world: World) -> None:  # noqa: F811
    short, other = world.merchant(), world.merchant()
    theirs = [world.refund(short, "1") for _ in range(payout_job.BATCH)]
    others = world.refund(other, "1")
    assert others not in batch(world, set())  # a whole batch of the short merchant's older refunds
    taken = batch(world, {(short, False, "ETH-TEST")})
    assert taken[0] == others and taken[1:] == theirs[: payout_job.BATCH - 1]


def test_a_waiting_merchants_native_coin_refunds_keep_their_place(world: World) -> None:  # noqa: F811
    """They pay their fee out of their amount: nothing of theirs waits for gas."""
    short, other = world.merchant(), world.merchant()
    native = world.refund(short, "1", asset_id=ETH)
    token = world.refund(short, "1")
    others = world.refund(other, "1")
    assert batch(world, {(short, False, "ETH-TEST")}) == [native, others, token]


def test_a_refund_waiting_for_its_approvers_is_not_taken(world: World) -> None:  # noqa: F811
    m = world.merchant()
    sendable, waiting = world.refund(m, "1"), world.refund(m, "2")
    changed(world, waiting, approval_status="pending")
    assert batch(world, set()) == [sendable]


def test_card_refunds_are_never_in_the_chain_batch(world: World) -> None:  # noqa: F811
    m = world.merchant()
    chain, card = world.refund(m, "1"), world.refund(m, "2")
    changed(world, card, network="")
    assert batch(world, set()) == [chain]
