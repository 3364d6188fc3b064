"""Which stored row a transfer seen on chain is (server/watcher/same_transfer.py): matched by what it is within its
transaction, not by its log index; moved rows never break the unique key (network, tx_hash, log_index), on SQLite
and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import select

from server.chains.models import ChainTransfer
from server.db import Database
from server.rails.base import SeenTransfer
from server.watcher import same_transfer
from tests.harness import migrated_database

TX = "0x" + "ab" * 32
PAYER, A, B = "0x" + "11" * 20, "0x" + "aa" * 20, "0x" + "bb" * 20
USDT = "USDT-ETH-TEST"


def seen(log_index: int, to: str, amount: int, block_hash: str = "0xnew") -> SeenTransfer:
    return SeenTransfer(tx_hash=TX, log_index=log_index, block_number=11, block_hash=block_hash, from_address=PAYER,
                        to_address=to, asset_id=USDT, amount_base=amount, decimals=6)


def row(id_: str, log_index: int, to: str, amount: int) -> ChainTransfer:
    return ChainTransfer(id=id_, network="ETH-TEST", tx_hash=TX, log_index=log_index, block_number=10,
                         block_hash="0xold", from_address=PAYER, to_address=to, asset_id=USDT,
                         amount_base=Decimal(amount), decimals=6, owner_id="ch_1", status="reverted", created_at=1,
                         updated_at=1)


def ids(pairs: list[same_transfer.Pair]) -> list[tuple[int, str]]:
    return [(t.log_index, r.id) for t, r in pairs]


def test_a_sighting_at_its_rows_index_with_the_same_content_is_that_row() -> None:
    pairs, new = same_transfer.pair([seen(3, A, 5)], [row("tx_a", 3, A, 5)])
    assert (ids(pairs), new) == ([(3, "tx_a")], [])


def test_a_sighting_at_another_index_is_the_row_with_the_same_content() -> None:
    pairs, new = same_transfer.pair([seen(4, A, 5), seen(5, B, 6)], [row("tx_a", 3, A, 5), row("tx_b", 4, B, 6)])
    assert (sorted(ids(pairs)), new) == ([(4, "tx_a"), (5, "tx_b")], [])


def test_two_identical_transfers_of_one_transaction_keep_their_order() -> None:
    pairs, _ = same_transfer.pair([seen(7, A, 5), seen(8, A, 5)], [row("tx_2", 2, A, 5), row("tx_1", 1, A, 5)])
    assert sorted(ids(pairs)) == [(7, "tx_1"), (8, "tx_2")]


def test_a_sighting_unlike_every_row_of_its_transaction_is_a_new_transfer() -> None:
    # Re-executed in its new block, the transaction paid another amount: not the transfer that was recorded.
    sighting = seen(3, A, 9)
    pairs, new = same_transfer.pair([sighting], [row("tx_a", 3, A, 5)])
    assert (pairs, new) == ([], [sighting])


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


def renumbered(url: str, rows: list[ChainTransfer], sightings: list[SeenTransfer]) -> dict[str, int]:
    """Stores `rows`, renumbers them for `sightings` and adds the new ones, in one transaction: id → log index."""
    async def run() -> dict[str, int]:
        db = Database(url)
        try:
            async with db.transaction() as s:
                s.add_all(rows)
            async with db.transaction() as s:
                stored = list((await s.exec(select(ChainTransfer))).all())
                pairs, new = same_transfer.pair(sightings, stored)
                await same_transfer.renumber(s, stored, pairs, new)
                s.add_all(row(f"tx_new{t.log_index}", t.log_index, t.to_address, t.amount_base) for t in new)
            async with db.read() as s:
                return {r.id: r.log_index for r in (await s.exec(select(ChainTransfer))).all()}
        finally:
            await db.close()
    return asyncio.run(run())


def test_two_rows_that_take_each_others_log_index_are_both_moved(url: str) -> None:
    after = renumbered(url, [row("tx_a", 0, A, 5), row("tx_b", 1, B, 6)], [seen(1, A, 5), seen(2, B, 6)])
    assert after == {"tx_a": 1, "tx_b": 2}


def test_a_row_whose_transfer_is_gone_yields_its_index_to_a_new_transfer(url: str) -> None:
    after = renumbered(url, [row("tx_a", 0, A, 5)], [seen(0, A, 9)])
    assert after == {"tx_a": -2, "tx_new0": 0}  # parked below -1 (a native transfer's index), still reverted
