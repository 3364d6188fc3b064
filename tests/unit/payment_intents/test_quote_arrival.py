"""A transfer arrives, for its quote, at the earlier of its block's time and the watcher's first sight of it
(totals.arrival_time): a payment mined on time counts however late paygate saw it, and a block time later than the
first sight never makes a late payment count."""

from __future__ import annotations

from server.chains.models import ChainTransfer
from server.payment_intents import totals
from server.payment_intents.models import Charge
from tests.unit.payment_intents.test_totals import ETH, _charge, _transfer

EXPIRES = 1_800_000_000
LATE = EXPIRES + _charge(ETH).quote_grace_seconds + 1


def _charge_expiring() -> Charge:
    charge = _charge(ETH)
    charge.quote_expires_at = EXPIRES
    return charge


def _seen(first_seen: int, block_time: int | None) -> ChainTransfer:
    t = _transfer(ETH, 10**15, 18)
    t.created_at, t.block_timestamp = first_seen, block_time
    return t


def _counts(t: ChainTransfer) -> bool:
    return totals.within_quote(_charge_expiring(), t, priced_in="USD")


def test_a_payment_mined_before_its_quote_expired_counts_though_first_seen_after_the_grace() -> None:
    assert _counts(_seen(first_seen=LATE + 3600, block_time=EXPIRES - 5))


def test_a_payment_mined_after_its_quote_and_grace_expired_does_not_count() -> None:
    assert not _counts(_seen(first_seen=LATE + 2, block_time=LATE))


def test_a_block_time_later_than_the_first_sight_does_not_make_a_late_payment_count() -> None:
    # A block time is only believed when it is the earlier of the two; here the first sight, already late, stands.
    t = _seen(first_seen=LATE, block_time=LATE + 600)
    assert totals.arrival_time(t) == LATE and not _counts(t)


def test_a_block_time_later_than_the_first_sight_does_not_make_an_on_time_payment_late() -> None:
    assert _counts(_seen(first_seen=EXPIRES, block_time=LATE + 600))  # a node whose clock runs ahead


def test_a_transfer_recorded_without_a_block_time_arrives_when_first_seen() -> None:
    assert totals.arrival_time(_seen(first_seen=EXPIRES + 7, block_time=None)) == EXPIRES + 7
    assert not _counts(_seen(first_seen=LATE, block_time=None))
