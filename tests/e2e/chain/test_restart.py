"""The cursor in the database is all a watcher needs: a restart neither misses nor double-counts a transfer."""

from __future__ import annotations

from server.chains.models import NetworkCursor
from tests.e2e.chain.rig import Rig


def test_a_restarted_watcher_records_what_arrived_while_it_was_down_once(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    before = chain.send_token("USDT", 1, address, 1)
    rig.run_pass()
    while_down = [chain.send_token("USDT", 1, address, 2), chain.send_eth(1, address, 3)]
    restarted = Rig(rig.url, chain.networks_file, rig.screening, migrated=True,  # a new process: new db, new holder
                    listeners=rig.listeners)
    try:
        restarted.run_pass()
    finally:
        restarted.close()
    rows = rig.transfers(address)
    assert sorted(t.tx_hash for t in rows) == sorted([before.tx_hash] + [s.tx_hash for s in while_down])
    inserts = [h.tx_hash for h in heard if h.previous_status == ""]
    assert sorted(inserts) == sorted(t.tx_hash for t in rows)


def test_a_watcher_resumes_after_the_cursor_block(chain, rig):
    rig.watch(from_block=chain.head())
    rig.run_pass()
    last = rig.cursor().last_block
    chain.mine(5)
    report = rig.run_pass(rig.new_watcher())
    assert (report.scanned_from, report.scanned_to) == (last + 1, last + 5)
    assert rig.cursor().last_block_hash == chain.w3.eth.get_block(last + 5)["hash"].to_0x_hex()


def test_rescanning_recorded_blocks_changes_nothing(chain, rig, heard):
    address = rig.watch(from_block=chain.head())
    first = chain.head()
    chain.send_token("USDT", 1, address, 5)
    chain.send_eth(1, address, 5)
    rig.run_pass()
    before = {(t.id, t.status, t.confirmations) for t in rig.transfers(address)}
    calls = len(heard)

    async def rewind() -> None:
        async with rig.db.transaction() as session:
            cursor = await session.get(NetworkCursor, "ETH-TEST")
            cursor.last_block, cursor.last_block_hash = first - 1, ""
    rig.run(rewind())
    report = rig.run_pass()
    assert report.scanned_from <= first
    assert {(t.id, t.status, t.confirmations) for t in rig.transfers(address)} == before
    assert len(heard) == calls


def test_a_catch_up_over_many_batches_records_every_transfer(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = [chain.send_eth(1, address, i + 1) for i in range(7)]
    report = rig.run_pass(rig.new_watcher(blocks_per_batch=2))
    assert report.blocks >= 7
    assert sorted(t.tx_hash for t in rig.transfers(address)) == sorted(s.tx_hash for s in sent)
