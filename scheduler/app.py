from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from scheduler.clock_guard import ClockGuard
from server import metrics
from server.runtime import Runtime

log = logging.getLogger("paygate.scheduler")

# How long a stopping scheduler waits for its cancelled job runs to end (to give back what they hold).
GRACE_SECONDS = 10.0


class Scheduler:
    """The periodic jobs of one process, and the runs of them in progress (so that stopping can wait for them)."""

    def __init__(self, rt: Runtime, guard: ClockGuard | None = None) -> None:
        self._sched = AsyncIOScheduler(job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 60})
        self.running: dict[asyncio.Task[object], str] = {}  # job run → job name
        self.stopping = False
        self.guard = guard or ClockGuard(rt.db)
        for job in rt.jobs:
            self._sched.add_job(self._tracked(job.name, job.run), "interval", seconds=job.seconds, args=[rt],
                                id=job.name, name=job.name)

    def _tracked(self, name: str, run: Callable[[Runtime], Awaitable[None]]) -> Callable[[Runtime], Awaitable[None]]:
        async def tracked(rt: Runtime) -> None:
            task = asyncio.current_task()
            assert task is not None
            self.running[task] = name
            try:
                if not await self.guard.allows():  # leases would be wrong (scheduler/clock_guard.py)
                    return
                async with metrics.job_run(name):  # runs, durations and failures per job (server/metrics.py)
                    await run(rt)
            except asyncio.CancelledError:
                if not self.stopping:
                    raise
                log.info("scheduler job stopped", extra={"job": name})  # the end of a run cut short by stop()
            finally:
                self.running.pop(task, None)
        return tracked

    def start(self) -> None:
        self._sched.start()

    async def stop(self, grace: float = GRACE_SECONDS) -> list[str]:
        """Starts no more runs, cancels those in progress and waits up to `grace` seconds for them to end (a
        cancelled delivery run gives back the attempts it holds); the names of the jobs still running then."""
        self.stopping = True
        runs = dict(self.running)
        self._sched.shutdown(wait=False)  # cancels the runs in progress (APScheduler's asyncio executor)
        for task in runs:
            if not task.cancelling():  # once: a second cancellation would cut short the run's own cleanup
                task.cancel()
        if runs:
            await asyncio.wait(runs, timeout=grace)
        stuck = sorted({name for task, name in runs.items() if not task.done()})
        if stuck:
            log.error("scheduler jobs did not stop", extra={"jobs": stuck, "grace_seconds": grace})
        return stuck


def build(rt: Runtime) -> Scheduler:
    """A scheduler with every job the packages registered into `rt` (server/boot/composition.py); a run that overlaps
    the previous one of the same job is skipped."""
    return Scheduler(rt)
