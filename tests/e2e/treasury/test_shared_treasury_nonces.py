"""One treasury, several senders (DESIGN §15): refunds, sweeps' gas top-ups and payout addresses' micro-deposits all
sign from the merchant's treasury, in different scheduler jobs that run concurrently (and, on PostgreSQL, in a
second scheduler process as well). Every transaction is mined once, no nonce is used twice or skipped, and nothing
needs a filler, a cancel or a fresh nonce."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import sqlalchemy as sa

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent
from tests.e2e.refunds.support import PAYER, chain_nonce, created, fund_treasury, manual_mining, paid_intent
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.test_addresses import create, fresh_address
from tests.e2e.treasury.test_sweeps import sweeps
from tests.harness import Service

WAIT_SECONDS = 120
REFUNDS = 3
NEW_PAYMENTS = 2
ADDRESSES = 2


@pytest.fixture
def second_scheduler(paygate: Service) -> Iterator[None]:
    """On PostgreSQL, a second `paygate serve --only scheduler` on the same database: the same jobs, another process."""
    if paygate.kind != "postgresql":
        yield
        return
    workdir = paygate.workdir / "second"
    workdir.mkdir(exist_ok=True)
    other = replace(paygate, workdir=workdir, process=None)
    with (workdir / "serve.log").open("ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "scheduler"],
                                   env=other.env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


def _treasury_transactions(chain: Chain, treasury: str, first_block: int) -> list[dict[str, Any]]:
    sent = []
    for number in range(first_block, chain.w3.eth.block_number + 1):
        for tx in chain.w3.eth.get_block(number, full_transactions=True)["transactions"]:
            if str(tx["from"]).lower() == treasury.lower():  # type: ignore[index]
                sent.append(tx)
    return sent  # type: ignore[return-value]


def _reserved(paygate: Service, treasury: str) -> int:
    """The treasury's next nonce as paygate reserved it."""
    url = paygate.database_url.replace("postgresql://", "postgresql+psycopg://")
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text("SELECT next_nonce FROM treasury_nonces WHERE address = :a"),
                                    {"a": treasury.lower()}).scalar_one())
    finally:
        engine.dispose()


def test_refunds_top_ups_and_micro_deposits_due_at_once_share_the_treasury_nonces(
        chain: Chain, shop: Merchant, paygate: Service, second_scheduler: None) -> None:
    fund_treasury(chain, shop, wei=10**17, usdt=30_000_000)
    first_block = chain.w3.eth.block_number + 1
    start_nonce = chain_nonce(chain, shop.treasury)
    base = paid_intent(chain, shop, "USDT-ETH-TEST", "10.50")  # swept too: a top-up from the treasury
    for _ in range(NEW_PAYMENTS):  # mined, confirmed (and then swept) once blocks are mined again below
        _, quote = open_intent(shop.api, "USDT-ETH-TEST", "10.50")
        chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    with manual_mining(chain):
        # Everything due at once: new payments to sweep, refunds to send, addresses to verify.
        refunds = [created(shop, base["id"], "1") for _ in range(REFUNDS)]
        addresses = [create(shop, fresh_address()) for _ in range(ADDRESSES)]
        time.sleep(4)  # a few concurrent passes sign while nothing is mined
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        done_refunds = [ok(shop.api.get(f"/v1/refunds/{r['id']}")) for r in refunds]
        done_sweeps = [s for s in sweeps(shop) if s["status"] == "succeeded"]
        sent = [ok(shop.api.get(f"/v1/addresses/{a['id']}")) for a in addresses]
        if all(r["status"] in ("Success", "Failed") for r in done_refunds) \
                and len(done_sweeps) >= 1 + NEW_PAYMENTS and all(a["verification"]["status"] == "sent" for a in sent):
            break
        assert time.monotonic() < deadline, (done_refunds, sweeps(shop), sent)
        chain.mine(1)
        time.sleep(0.5)

    assert [r["status"] for r in done_refunds] == ["Success"] * REFUNDS, done_refunds
    # One transaction per refund, never lost to another sender's nonce and signed again.
    assert all([t["status"] for t in r["transactions"]] == ["confirmed"] for r in done_refunds), done_refunds
    top_ups = [t for s in done_sweeps for t in s["transactions"] if t["type"] == "gas"]
    assert len(top_ups) == 1 + NEW_PAYMENTS and all(t["status"] == "confirmed" for t in top_ups), done_sweeps

    mined = _treasury_transactions(chain, shop.treasury, first_block)
    nonces = sorted(int(tx["nonce"]) for tx in mined)
    # Exactly the refunds, the top-ups and the micro-deposits: no filler for a skipped nonce, no cancel, no re-sign.
    assert len(mined) == REFUNDS + 1 + NEW_PAYMENTS + ADDRESSES, mined
    assert nonces == list(range(start_nonce, start_nonce + len(mined)))
    hashes = [tx["hash"].to_0x_hex() for tx in mined]
    for r in done_refunds:
        assert hashes.count(r["transactions"][0]["tx_hash"]) == 1
    for t in top_ups:
        assert hashes.count(t["tx_hash"]) == 1
    # Nothing reserved and left unused (a gap every later transaction would wait behind), nothing stuck.
    assert _reserved(paygate, shop.treasury) == chain_nonce(chain, shop.treasury) == start_nonce + len(mined)
    assert int(chain.w3.eth.get_transaction_count(chain.w3.to_checksum_address(shop.treasury), "pending")) == \
        start_nonce + len(mined)
