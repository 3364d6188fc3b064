from __future__ import annotations

import logging

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from scheduler.jobs import JOBS
from server.runtime import Runtime

log = logging.getLogger("paygate.scheduler")


def build(rt: Runtime) -> AsyncIOScheduler:
    """A scheduler with every job; a run that overlaps the previous one of the same job is skipped."""
    sched = AsyncIOScheduler(job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 60})
    for job, seconds in JOBS:
        sched.add_job(job, "interval", seconds=seconds, args=[rt], id=job.__name__)
    return sched
