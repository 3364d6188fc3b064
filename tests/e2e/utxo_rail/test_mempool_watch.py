"""The chain watcher over a real litecoind's mempool (issue 34): a payment is listed unmined the moment it reaches the
node, moves to its block in place when mined (never through `reverted`), and ends `reverted` when its transaction
leaves the mempool unmined; one listed before its address's watch ended is still followed to its block. The watcher
driven pass by pass, on SQLite and PostgreSQL; each test is one coroutine."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.aml import DenyListScreener, Screening
from server.chains import hooks
from server.chains.models import ChainTransfer, WatchedAddress
from server.clock import now_of
from server.db import Database
from server.watcher import NetworkWatcher
from tests.harness import migrated_database
from tests.litecoin import MNEMONIC, Litecoin, run

Heard = list[tuple[str, str]]  # (previous status, status) per change the listeners were told


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


class Watch:
    """One database and one watcher of the node's network, on the test's event loop."""

    def __init__(self, litecoin: Litecoin, url: str) -> None:
        self.litecoin = litecoin
        self.db = Database(url)
        self.heard: Heard = []
        hooks.listen(self.db, self._hear)
        self.watcher = NetworkWatcher(self.db, litecoin.network, litecoin.scanner(),
                                      Screening(DenyListScreener(frozenset())))

    async def _hear(self, session: AsyncSession, t: ChainTransfer, previous: str, previous_aml: str) -> None:
        self.heard.append((previous, t.status))

    async def watch(self, address: str) -> None:
        async with self.db.transaction() as session:
            session.add(WatchedAddress(network=self.litecoin.network.id, address=address, owner_id="ch_test",
                                       merchant_id="mer_test", livemode=False, from_block=self.litecoin.head(),
                                       watch_until=now_of(session) + 3600))

    async def end_watch(self, address: str) -> None:
        async with self.db.transaction() as session:
            await session.exec(sa.update(WatchedAddress).where(WatchedAddress.address == address)
                                  .values(watch_until=now_of(session) - 1))

    async def pass_(self) -> None:
        report = await self.watcher.run_pass()
        assert report.claimed and not report.error, report

    async def rows(self, address: str) -> list[ChainTransfer]:
        async with self.db.read() as session:
            return list((await session.exec(select(ChainTransfer).where(ChainTransfer.to_address == address))).all())

    async def close(self) -> None:
        await self.watcher.scanner.close()
        await self.db.close()


def test_a_mempool_payment_is_listed_unmined_and_moves_to_its_block_in_place(
        litecoin: Litecoin, account: int, database_url: str) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)

    async def scenario() -> None:
        w = Watch(litecoin, database_url)
        await w.watch(address)
        await w.pass_()
        txid = litecoin.pay(address, Decimal("0.25"))
        await w.pass_()
        await w.pass_()  # a second pass changes nothing: no block, no confirmation
        [row] = await w.rows(address)
        assert (row.tx_hash, row.status, row.block_number, row.block_hash, row.confirmations) == (
            txid, "submitted", 0, "", 0)
        assert row.amount_base == 25_000_000 and row.from_addresses and row.from_address == row.from_addresses[0]

        block = litecoin.mine(1)[0]
        await w.pass_()
        [mined] = await w.rows(address)
        assert (mined.id, mined.status, mined.block_number, mined.block_hash) == (
            row.id, "submitted", litecoin.head(), block)
        litecoin.mine(litecoin.network.confirmations)
        await w.pass_()
        [confirmed] = await w.rows(address)
        assert (confirmed.id, confirmed.status, confirmed.aml_status) == (row.id, "confirmed", "approved")
        # Listed, then confirmed, then its AML verdict (told at an unchanged status): never reverted on the way, and
        # nothing told for the block alone.
        assert w.heard == [("", "submitted"), ("submitted", "confirmed"), ("confirmed", "confirmed")]
        await w.close()

    run(scenario())


def test_a_mempool_payment_replaced_to_another_address_ends_reverted_and_stays_so(
        litecoin: Litecoin, account: int, database_url: str) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)

    async def scenario() -> None:
        w = Watch(litecoin, database_url)
        await w.watch(address)
        txid = litecoin.pay(address, Decimal("0.25"), replaceable=True)
        await w.pass_()
        assert [(r.tx_hash, r.status) for r in await w.rows(address)] == [(txid, "submitted")]
        litecoin.replace(txid, str(litecoin.wallet("getnewaddress", "", "bech32")))
        await w.pass_()
        assert [(r.tx_hash, r.status) for r in await w.rows(address)] == [(txid, "reverted")]
        litecoin.mine(litecoin.network.confirmations + 1)
        await w.pass_()
        await w.pass_()
        assert [(r.tx_hash, r.status) for r in await w.rows(address)] == [(txid, "reverted")]
        assert w.heard == [("", "submitted"), ("submitted", "reverted")]
        await w.close()

    run(scenario())


def test_a_payment_listed_unmined_is_followed_to_its_block_after_its_address_watch_ended(
        litecoin: Litecoin, account: int, database_url: str) -> None:
    address = litecoin.keys.deposit_address(MNEMONIC, account, 0)

    async def scenario() -> None:
        w = Watch(litecoin, database_url)
        await w.watch(address)
        txid = litecoin.pay(address, Decimal("0.25"))
        await w.pass_()
        await w.end_watch(address)
        block = litecoin.mine(1)[0]
        await w.pass_()
        [row] = await w.rows(address)
        assert (row.tx_hash, row.status, row.block_hash) == (txid, "submitted", block)
        await w.close()

    run(scenario())
