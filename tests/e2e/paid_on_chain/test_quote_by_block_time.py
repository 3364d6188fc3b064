"""A crypto payment is checked against its quote by when it was mined, not only by when paygate first saw it: a
payment mined while its quote held counts even if the watcher was stopped until long after the quote (and its grace)
lapsed; one mined after the quote and its grace lapsed does not. A whole paygate on a moveable clock
(tests/clock.py) and the session's Anvil, on SQLite and PostgreSQL."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.config import Settings
from tests.chain import Chain
from tests.e2e.paid_on_chain.conftest import DENIED_PAYER, mnemonic_for
from tests.e2e.paid_on_chain.test_paid_on_chain import PAYER, base_units, open_intent, transactions, wait_for
from tests.harness import Service, start, stop

USDT = "USDT-ETH-TEST"


class Offset:
    """paygate's clock: the wall clock plus the seconds in this file (tests/clock.FileOffsetClock reads it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.set(0)

    def set(self, seconds: int) -> None:
        self.path.write_text(str(seconds))


@pytest.fixture(scope="module")
def offset(tmp_path_factory: pytest.TempPathFactory) -> Offset:
    return Offset(tmp_path_factory.mktemp("clock") / "offset")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, chain: Chain, offset: Offset,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """This module's paygate, on the moveable clock (`shop` of conftest.py uses it)."""
    config = f'aml_deny_list = ["{chain.accounts[DENIED_PAYER].address}"]\n'
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"block-time-{request.param}")),
                networks_file=chain.networks_file, config=config, clock_file=offset.path,
                extra_env={"PAYGATE_WALLET_MNEMONIC": mnemonic_for(request.module.__name__, request.param)})
    yield svc
    stop(svc)


@pytest.fixture(autouse=True)
def wall_clock(offset: Offset) -> Iterator[None]:
    offset.set(0)
    yield
    offset.set(0)


def mined_at(chain: Chain, block_number: int) -> int:
    return int(chain.w3.eth.get_block(block_number)["timestamp"])


def screened(shop: httpx.Client, intent_id: str, tx_hash: str) -> dict[str, Any]:
    """The intent once the transfer is confirmed and screened, whether it paid the intent or is unexpected funds."""
    return wait_for(shop, intent_id, lambda i: any(
        t["tx_hash"] == tx_hash and t["status"] == "confirmed" and t["aml_status"] == "approved"
        for t in [*transactions(i), *i["unexpected_funds"]]))


def test_a_payment_mined_before_its_quote_expired_counts_when_the_watcher_sees_it_after_the_grace(
        chain: Chain, paygate: Service, offset: Offset, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, USDT)
    assert paygate.process is not None
    paygate.process.send_signal(signal.SIGSTOP)  # the watcher (all of paygate) stops before the payment is mined
    try:
        sent = chain.send_token("USDT", PAYER, quote["deposit_address"],
                                base_units(quote["amount"], quote["decimals"]))
        assert mined_at(chain, sent.block_number) <= quote["expired_at"]
        # When paygate wakes up, its clock is a minute past the quote's expiry and grace.
        offset.set(quote["expired_at"] + Settings.quote_grace_seconds + 60 - int(time.time()))
    finally:
        paygate.process.send_signal(signal.SIGCONT)
    chain.mine(3)
    paid = screened(shop, intent_id, sent.tx_hash)
    [tx] = transactions(paid)
    assert tx["created_at"] > quote["expired_at"] + Settings.quote_grace_seconds  # first seen after the grace
    assert (paid["status"], paid["unexpected_funds"]) == ("Success", [])
    assert Decimal(paid["payment_details"]["amount_captured"]["amount"]) == Decimal(quote["amount"])


def test_a_payment_mined_after_its_quote_and_grace_expired_does_not_count(
        chain: Chain, offset: Offset, shop: httpx.Client) -> None:
    # The intent is opened on a clock behind by the quote's life, its grace and a minute: its quote has lapsed,
    # grace included, a minute before the wall clock's now, when the payment is mined.
    quote_seconds = 1800  # the default PAYGATE_QUOTE_SECONDS
    offset.set(-(quote_seconds + Settings.quote_grace_seconds + 60))
    intent_id, quote = open_intent(shop, USDT)
    offset.set(0)
    sent = chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    assert mined_at(chain, sent.block_number) > quote["expired_at"] + Settings.quote_grace_seconds
    chain.mine(3)
    late = screened(shop, intent_id, sent.tx_hash)
    assert late["status"] == "RequiresPaymentMethod" and transactions(late) == []
    [funds] = late["unexpected_funds"]
    assert (funds["tx_hash"], Decimal(funds["amount"])) == (sent.tx_hash, Decimal(quote["amount"]))
