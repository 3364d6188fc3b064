from __future__ import annotations

import logging

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from server.runtime import Runtime

log = logging.getLogger("paygate.scheduler")


def build(rt: Runtime) -> AsyncIOScheduler:
    """A scheduler with every job the packages registered into `rt` (server/composition.py); a run that overlaps
    the previous one of the same job is skipped."""
    sched = AsyncIOScheduler(job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 60})
    for job in rt.jobs:
        sched.add_job(job.run, "interval", seconds=job.seconds, args=[rt], id=job.name)
    return sched
