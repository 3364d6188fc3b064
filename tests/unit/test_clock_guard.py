"""Scheduler jobs pause while this host's clock disagrees with the database's (scheduler/clock_guard.py): leases
shared with other scheduler processes would be wrong (a clock 210 s ahead re-sent webhooks still in flight)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from scheduler.app import Scheduler
from scheduler.clock_guard import MAX_SKEW_SECONDS, ClockGuard
from server.db import Database
from tests.harness import create_database, drop_database


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    made = create_database(request.param, tmp_path)
    yield made
    drop_database(made)


def ahead(seconds: float) -> Any:
    return lambda: time.time() + seconds


def allows(url: str, wall: Any) -> bool:
    async def go() -> bool:
        db = Database(url)
        try:
            return await ClockGuard(db, wall=wall).allows()
        finally:
            await db.close()
    return asyncio.run(go())


def test_a_host_clock_that_agrees_with_the_database_runs_the_jobs(url: str) -> None:
    assert allows(url, time.time)


def test_a_host_clock_far_ahead_of_the_database_pauses_the_jobs_with_an_error(
        url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, "paygate.scheduler")
    paused = not allows(url, ahead(210))
    if url.startswith("sqlite"):
        assert not paused  # one host, one clock: nothing to disagree with
        return
    assert paused
    assert any("clock differs" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)


def test_a_host_clock_behind_the_database_pauses_the_jobs_too(url: str) -> None:
    assert allows(url, ahead(-(MAX_SKEW_SECONDS + 60))) == url.startswith("sqlite")


def test_a_paused_scheduler_skips_its_job_runs(url: str) -> None:
    async def go() -> list[str]:
        db = Database(url)
        ran: list[str] = []

        async def job(rt: Any) -> None:
            ran.append("ran")
        try:
            rt: Any = SimpleNamespace(jobs=[], db=db)
            sched = Scheduler(rt, guard=ClockGuard(db, wall=ahead(210)))
            await sched._tracked("deliver_webhooks", job)(rt)
        finally:
            await db.close()
        return ran
    assert asyncio.run(go()) == ([] if url.startswith("postgresql") else ["ran"])
