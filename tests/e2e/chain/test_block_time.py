"""The watcher records each transfer's block timestamp beside its first sight (`created_at`): the quote rule compares
the earlier of the two with the quote (server/payment_intents/totals.arrival_time)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.chain import Chain
from tests.clock import SetClock
from tests.e2e.chain.conftest import make_rig
from tests.e2e.chain.rig import Rig
from tests.e2e.chain.test_reorg_moved_transfer import other_token_transfer, reorg

PAYER = 1


def block_time(chain: Chain, number: int) -> int:
    return int(chain.w3.eth.get_block(number)["timestamp"])


def test_a_token_transfer_is_recorded_with_its_blocks_timestamp(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_token("USDT", PAYER, address, 1_000_000)
    rig.run_pass()
    assert rig.transfer(sent.tx_hash).block_timestamp == block_time(chain, sent.block_number)


def test_a_native_transfer_is_recorded_with_its_blocks_timestamp(chain, rig):
    address = rig.watch(from_block=chain.head())
    sent = chain.send_eth(PAYER, address, 10**15)
    rig.run_pass()
    assert rig.transfer(sent.tx_hash).block_timestamp == block_time(chain, sent.block_number)


@pytest.fixture
def late_clock() -> SetClock:
    return SetClock()


@pytest.fixture
def late_rig(chain, database_url, heard, late_clock) -> Iterator[Rig]:
    r = make_rig(chain, database_url, heard, clock=late_clock)
    yield r
    r.close()


def test_a_watcher_that_sees_a_transfer_an_hour_late_records_when_it_was_mined(chain, late_rig, late_clock):
    # Watched for a day, as a deposit address is after its quote (payment_intents/attempts.WATCH_GRACE_SECONDS).
    address = late_rig.watch(from_block=chain.head(), watch_until=late_clock.now() + 24 * 3600)
    sent = chain.send_token("USDT", PAYER, address, 1_000_000)
    mined = block_time(chain, sent.block_number)
    late_clock.at(mined + 3600)  # the watcher was down for an hour
    late_rig.run_pass()
    t = late_rig.transfer(sent.tx_hash)
    assert (t.created_at, t.block_timestamp) == (mined + 3600, mined)


def test_a_transfer_re_mined_in_another_block_takes_that_blocks_time_and_keeps_its_first_sight(chain, rig):
    address = rig.watch(from_block=chain.head())
    time.sleep(1.1)  # the transfer's block is a second younger than its parent
    sent = chain.send_token("USDT", PAYER, address, 1_000_000)
    rig.run_pass()
    first = rig.transfer(sent.tx_hash)
    time.sleep(1.1)  # and its replacement is not made in its second either (Anvil gives it its parent's time)
    reorg(chain, 1, other_token_transfer(chain), "0x" + sent.raw.hex())
    rig.run_pass()
    t = rig.transfer(sent.tx_hash)
    assert t.block_timestamp == block_time(chain, t.block_number) != first.block_timestamp
    assert t.created_at == first.created_at
