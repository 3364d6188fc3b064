"""The NetworkCursor lease: one watcher per network at a time; a lapsed lease is taken over; a lost one writes
nothing."""

from __future__ import annotations

from typing import Any

import pytest

from server.chains.models import NetworkCursor
from server.clock import now_of
from server.rails.base import ScanResult
from server.rails.evm.scanner import EvmScanner
from server.watcher import NetworkWatcher, lease
from tests.e2e.chain.rig import Rig


def test_a_second_watcher_skips_a_network_leased_by_another(rig):
    assert rig.run(lease.claim(rig.db, "ETH-TEST", "someone-else")) is not None
    report = rig.run(rig.watcher.run_pass())
    assert not report.claimed and report.blocks == 0


def test_the_lease_is_released_at_the_end_of_a_pass(rig):
    rig.run_pass()
    assert (rig.cursor().holder, rig.cursor().lease_until) == ("", 0)


def test_a_lapsed_lease_is_taken_over(rig):
    rig.run(lease.claim(rig.db, "ETH-TEST", "crashed-watcher"))

    async def lapse() -> None:
        async with rig.db.transaction() as session:
            cursor = await session.get(NetworkCursor, "ETH-TEST")
            cursor.lease_until = now_of(session) - 1
    rig.run(lapse())
    assert rig.run(rig.watcher.run_pass()).claimed


class StallingScanner:
    """The real scanner, but the watcher stalls past its lease while it scans: before `scan` returns, the lease
    lapses and another watcher takes the network (through the real `lease.claim`)."""

    def __init__(self, rig: Rig) -> None:
        self.inner = EvmScanner.for_network(rig.network)
        self.rig = rig

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def scan(self, start: int, end: int, addresses: set[str]) -> ScanResult:
        result = await self.inner.scan(start, end, addresses)
        async with self.rig.db.transaction() as session:
            cursor = await session.get(NetworkCursor, "ETH-TEST")
            assert cursor is not None
            cursor.lease_until = now_of(session) - 1
            session.add(cursor)
        assert await lease.claim(self.rig.db, "ETH-TEST", "someone-else") is not None
        return result


def test_a_watcher_that_lost_its_lease_mid_pass_writes_nothing(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", 1, address, 1_000_000)
    before = rig.cursor()
    stalled = NetworkWatcher(rig.db, rig.network, StallingScanner(rig), rig.screening)  # type: ignore[arg-type]
    rig.watchers.append(stalled)
    report = rig.run(stalled.run_pass())
    # It claimed, scanned the transfer, then tried to record it and move the cursor: the fence refused both.
    assert report.claimed and "lease taken over by someone-else" in report.error
    assert rig.transfers(address) == []
    after = rig.cursor()
    assert after is not None and after.holder == "someone-else"  # the end of its pass did not release another's
    assert (after.last_block, after.last_block_hash) == ((before.last_block, before.last_block_hash) if before
                                                          else (-1, ""))
    # The new holder records the transfer once it runs.
    rig.run(lease.release(rig.db, "ETH-TEST", "someone-else"))
    rig.run_pass()
    assert [t.tx_hash for t in rig.transfers(address)] == [sent.tx_hash]


def test_a_watcher_that_lost_its_lease_writes_nothing(rig):
    rig.run(lease.claim(rig.db, "ETH-TEST", "me"))

    async def take_over_then_write() -> None:
        async with rig.db.transaction() as session:
            cursor = await session.get(NetworkCursor, "ETH-TEST")
            cursor.holder = "someone-else"
        async with rig.db.transaction() as session:
            await lease.fence(session, "ETH-TEST", "me", postgres=rig.db.is_postgres)
    with pytest.raises(lease.LeaseLost):
        rig.run(take_over_then_write())
    assert rig.cursor().holder == "someone-else"
