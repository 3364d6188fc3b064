"""Two watcher processes on one PostgreSQL database: each transfer is recorded, and each change heard, once."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from server.db import migrate
from tests.chain import Chain
from tests.e2e.chain.conftest import DENIED_SENDER
from tests.e2e.chain.rig import Rig, deny_list_screening
from tests.harness import create_database, drop_database

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def pg_rig(chain: Chain, tmp_path: Path) -> Iterator[Rig]:
    url = create_database("postgresql", tmp_path)
    migrate.upgrade(url)
    r = Rig(url, chain.networks_file, deny_list_screening(chain.accounts[DENIED_SENDER].address), migrated=True)
    yield r
    r.close()
    drop_database(url)


def start_runner(rig: Rig, chain: Chain, log: Path, stop: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tests.e2e.chain.watch_runner", rig.url, str(chain.networks_file),
                             str(log), str(stop), chain.accounts[DENIED_SENDER].address], cwd=ROOT)


def wait_until(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_two_watcher_processes_on_postgresql_count_each_transfer_once(chain, pg_rig, tmp_path):
    addresses = [pg_rig.watch(from_block=chain.head()) for _ in range(4)]
    logs, stop = [tmp_path / "a.log", tmp_path / "b.log"], tmp_path / "stop"
    runners = [start_runner(pg_rig, chain, log, stop) for log in logs]
    try:
        wait_until(lambda: all(log.exists() and log.read_text() for log in logs))  # both are passing
        sent = []
        for i in range(20):
            to = addresses[i % len(addresses)]
            sent.append(chain.send_token("USDT", 1, to, 1_000 + i) if i % 2 else chain.send_eth(2, to, 10**15 + i))
            time.sleep(0.1)  # let passes of both processes interleave with the transfers
        chain.mine(3)
        wait_until(lambda: sorted((t.tx_hash, t.aml_status) for t in pg_rig.transfers())
                   == sorted((s.tx_hash, "approved") for s in sent))
    finally:
        stop.touch()
        for runner in runners:
            runner.wait(timeout=30)
    lines = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    changes: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for line in sorted((line for line in lines if "change" in line), key=lambda line: line["at"]):
        changes[line["tx"]].append(tuple(line["change"]))
    assert set(changes) == {s.tx_hash for s in sent}
    for tx, heard in changes.items():
        assert len(heard) == len(set(heard)), (tx, heard)  # no change heard twice
        assert [h for h in heard if h[0] == ""] == [heard[0]], (tx, heard)  # inserted once, first
        assert heard[-1][1:] == ("confirmed", "", "approved"), (tx, heard)
    assert len({line["pid"] for line in lines if line.get("blocks")}) == 2  # both processes did scan blocks
