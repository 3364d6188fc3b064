"""Stopping the scheduler (scheduler/app.py, issue 13): the job runs in progress are cancelled and waited for, up to a
grace period, so that they give back what they hold before `paygate serve` closes the database."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import cast

from scheduler.app import Scheduler
from server.runtime import Job, Runtime


def _runtime(*jobs: Job) -> Runtime:
    # A database with one host's clock: the clock guard (scheduler/clock_guard.py) never pauses the jobs.
    return cast(Runtime, SimpleNamespace(jobs=list(jobs), db=SimpleNamespace(is_postgres=False)))


async def _started(sched: Scheduler, names: set[str]) -> None:
    sched.start()
    while set(sched.running.values()) != names:
        await asyncio.sleep(0.01)


def test_stop_returns_after_a_cancelled_run_has_finished_its_cleanup() -> None:
    cleaned: list[str] = []

    async def job(rt: Runtime) -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            await asyncio.sleep(0.2)  # gives back its claims
            cleaned.append("done")
            raise

    async def scenario() -> list[str]:
        sched = Scheduler(_runtime(Job("deliver", job, 0.05)))
        await _started(sched, {"deliver"})
        stuck = await sched.stop(grace=5)
        assert cleaned == ["done"]
        return stuck

    assert asyncio.run(scenario()) == []


def test_stop_gives_up_after_the_grace_period_and_names_the_jobs_still_running() -> None:
    async def scenario() -> tuple[list[str], float]:
        released = asyncio.Event()

        async def stubborn(rt: Runtime) -> None:  # deaf to cancellation until the test releases it
            while not released.is_set():
                try:
                    await asyncio.sleep(0.02)
                except asyncio.CancelledError:
                    continue

        async def polite(rt: Runtime) -> None:
            await asyncio.sleep(60)

        sched = Scheduler(_runtime(Job("stubborn", stubborn, 0.05), Job("polite", polite, 0.05)))
        await _started(sched, {"stubborn", "polite"})
        began = asyncio.get_running_loop().time()
        stuck = await sched.stop(grace=0.3)
        elapsed = asyncio.get_running_loop().time() - began
        left = list(sched.running)
        released.set()
        await asyncio.wait(left, timeout=5)
        return stuck, elapsed

    stuck, elapsed = asyncio.run(scenario())
    assert stuck == ["stubborn"]
    assert elapsed < 5
