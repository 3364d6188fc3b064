"""`paygate serve --only scheduler` runs the chain watcher job with the configured AML deny list."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chain import Chain
from tests.e2e.chain.conftest import DENIED_SENDER
from tests.e2e.chain.rig import Rig, deny_list_screening
from tests.e2e.chain.test_two_processes import ROOT, wait_until


@pytest.fixture
def scheduler(chain: Chain, tmp_path: Path, database_url: str) -> Iterator[Rig]:
    url = database_url  # each backend (tests/e2e/chain/conftest.py)
    config = tmp_path / "paygate.toml"
    config.write_text(f'aml_deny_list = ["{chain.accounts[DENIED_SENDER].address}"]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    env.update(PAYGATE_DATABASE_URL=url, PAYGATE_NETWORKS=str(chain.networks_file), PAYGATE_CONFIG=str(config),
               PYTHONPATH=str(ROOT))
    rig = Rig(url, chain.networks_file, deny_list_screening(chain.accounts[DENIED_SENDER].address))
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "scheduler"], env=env,
                               cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    yield rig
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0, (tmp_path / "serve.log").read_text()
    rig.close()


def test_the_scheduler_records_transfers_and_rejects_a_deny_listed_sender(chain, scheduler):
    address = scheduler.watch(from_block=chain.head())
    clean = chain.send_token("USDT", 1, address, 1_000_000)
    denied = chain.send_eth(DENIED_SENDER, address, 10**16)
    chain.mine(3)
    wait_until(lambda: {(t.tx_hash, t.status, t.aml_status) for t in scheduler.transfers(address)}
               == {(clean.tx_hash, "confirmed", "approved"), (denied.tx_hash, "confirmed", "rejected")})
