"""The NetworkCursor lease: one watcher per network at a time; a lapsed lease is taken over; a lost one writes
nothing."""

from __future__ import annotations

import pytest

from server import clock
from server.chains.models import NetworkCursor
from server.watcher import lease


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
            cursor.lease_until = clock.now() - 1
    rig.run(lapse())
    assert rig.run(rig.watcher.run_pass()).claimed


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
