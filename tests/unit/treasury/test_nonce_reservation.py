"""The treasury's nonces reserved by several senders at once (refunds, sweeps' gas top-ups, micro-deposits and
payouts, each in its own scheduler job or process): every reservation gets its own nonce, none is skipped, and the
first ones of a source no counter exists for yet do not collide (real SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio

from server.rails.evm.models import TreasuryNonce
from server.rails.evm.payouts import EvmPayouts
from tests.unit.treasury.world import World, world  # noqa: F401

SENDERS = 8


async def _reserve_many(w: World, source: str, chain_nonce: int) -> list[int]:
    payouts = w.rt.rails.payouts("ETH-TEST")
    assert isinstance(payouts, EvmPayouts)

    async def one() -> int:
        async with w.db.transaction() as session:
            nonce = await payouts._reserve_nonce(session, source, chain_nonce)
            await asyncio.sleep(0.01)  # the signing and recording that follow, the reservation still held
            return nonce

    return list(await asyncio.gather(*(one() for _ in range(SENDERS))))


def test_senders_reserving_at_once_from_a_new_source_get_distinct_contiguous_nonces(world: World) -> None:  # noqa: F811
    source = "0x" + "5a" * 20
    nonces = world.run(_reserve_many(world, source, 0))
    assert sorted(nonces) == list(range(SENDERS))

    async def counter() -> TreasuryNonce | None:
        async with world.db.read() as session:
            return await session.get(TreasuryNonce, ("ETH-TEST", source))

    row = world.run(counter())
    assert row is not None and row.next_nonce == SENDERS


def test_a_chain_ahead_of_the_counter_moves_every_later_reservation_past_it(world: World) -> None:  # noqa: F811
    source = "0x" + "6b" * 20
    assert sorted(world.run(_reserve_many(world, source, 5))) == list(range(5, 5 + SENDERS))
