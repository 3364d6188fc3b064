"""Expiry by two real scheduler processes (`paygate serve --only scheduler`) sharing one PostgreSQL database: each
due intent is canceled exactly once, with exactly one `payment_intent.canceled` event, and both processes take part
(rows are claimed with FOR UPDATE SKIP LOCKED; SQLite has a single writer, so this runs on PostgreSQL only)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from server.db import Database
from server.events.models import Event
from server.payment_intents.expiry import BATCH
from server.payment_intents.models import PaymentIntent
from tests.conftest import http_client
from tests.e2e.payment_intents.support import create
from tests.harness import Service, start, stop

# More than one batch, so that a single job run cannot take them all.
DUE = BATCH + BATCH // 2
NOT_DUE = 5


class SchedulerProcess:
    """`paygate serve --only scheduler` against the service's database, logging to its own file."""

    def __init__(self, service: Service, workdir: Path) -> None:
        self.log_path = workdir / f"scheduler-{os.urandom(3).hex()}.log"
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "scheduler"],
                                        env=service.env, cwd=service.workdir, stdout=self._log,
                                        stderr=subprocess.STDOUT)

    def records(self) -> list[dict[str, Any]]:
        out = []
        for line in self.log_path.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # not a structured log line
        return out

    def expired(self) -> int:
        """Intents this process expired, summed over its job runs."""
        return sum(int(r["count"]) for r in self.records() if r.get("msg") == "payment intents expired")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self._log.close()


@pytest.fixture(scope="module")
def api_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """PostgreSQL only, and no scheduler: the test's own scheduler processes are the only ones expiring."""
    svc = start("postgresql", Path(tmp_path_factory.mktemp("paygate-expiry-processes")), only=("http", "grpc"))
    yield svc
    stop(svc)


@pytest.fixture
def schedulers(api_service: Service, tmp_path: Path) -> Iterator[list[SchedulerProcess]]:
    started: list[SchedulerProcess] = []
    yield started
    for s in started:
        s.stop()


def rows(service: Service, ids: list[str]) -> tuple[dict[str, tuple[str, str]], Counter[str]]:
    """Each intent's (status, cancellation_reason), and the number of `payment_intent.canceled` events per intent."""
    async def query() -> tuple[dict[str, tuple[str, str]], Counter[str]]:
        db = Database(service.database_url)
        try:
            async with db.read() as s:
                intents = await s.exec(select(PaymentIntent).where(col(PaymentIntent.id).in_(ids)))
                states = {i.id: (str(i.status), str(i.cancellation_reason or "")) for i in intents}
                events = await s.exec(select(Event).where(col(Event.object_id).in_(ids),
                                                          Event.type == "payment_intent.canceled"))
                return states, Counter(e.object_id for e in events)
        finally:
            await db.close()

    return asyncio.run(query())


def wait_started(pair: list[SchedulerProcess], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert all(s.process.poll() is None for s in pair), "a scheduler exited"
        if all(any(r.get("msg") == "scheduler started" for r in s.records()) for s in pair):
            return
        time.sleep(0.1)
    raise AssertionError("schedulers did not start")


def test_two_schedulers_on_postgresql_expire_each_intent_exactly_once(api_service: Service,
                                                                     schedulers: list[SchedulerProcess],
                                                                     tmp_path: Path) -> None:
    merchant = api_service.create_merchant()
    with http_client(api_service, merchant["test"]["secret_key"]) as api:
        created = [create(api, expires_in=1) for _ in range(DUE)]
        kept = [create(api, expires_in=3600)["id"] for _ in range(NOT_DUE)]
    due = [i["id"] for i in created]
    latest = max(i["expired_at"] for i in created)
    while time.time() < latest + 1:  # every due intent is past expired_at before either scheduler runs
        time.sleep(0.2)
    pair = [SchedulerProcess(api_service, tmp_path), SchedulerProcess(api_service, tmp_path)]
    schedulers.extend(pair)
    wait_started(pair)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        states, _ = rows(api_service, due)
        if all(status == "Canceled" for status, _ in states.values()):
            break
        time.sleep(0.5)
    # One more job interval for both, so that a second expiry of an intent would have happened by now.
    time.sleep(6)
    for s in pair:
        s.stop()
    states, canceled_events = rows(api_service, due + kept)
    assert {i: states[i] for i in due} == {i: ("Canceled", "expired") for i in due}
    assert {i: states[i][0] for i in kept} == {i: "RequiresPaymentMethod" for i in kept}
    assert canceled_events == Counter({i: 1 for i in due})
    by_process = [s.expired() for s in pair]
    assert min(by_process) > 0 and sum(by_process) == DUE, by_process
