"""Work a call starts and does not wait for (a card refund's provider call after its answer): one `Tasks` per runtime.

Each task is referenced until it ends (the event loop keeps only weak references), runs in a fresh context (none of
the request's context variables, so its transactions are not the call's: the idempotency key's before-commit hook
stays with the call) and has its failure logged, never dropped. Such work must be safe to lose: whatever it does is
also done by a scheduler job from the database, so a process that dies (or stops) with a task in flight loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger("paygate.background")


class Tasks:
    def __init__(self) -> None:
        self.running: dict[asyncio.Task[Any], str] = {}  # task → what it does, for the logs

    def spawn(self, work: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(work, name=name, context=contextvars.Context())
        self.running[task] = name
        task.add_done_callback(self._ended)
        return task

    def _ended(self, task: asyncio.Task[Any]) -> None:
        name = self.running.pop(task, task.get_name())
        if task.cancelled():
            log.info("background work cancelled", extra={"work": name})
        elif (error := task.exception()) is not None:
            log.error("background work failed", extra={"work": name, "error": type(error).__name__},
                      exc_info=error)

    async def close(self, grace: float) -> None:
        """Waits up to `grace` seconds for the work in flight, then cancels what is left (the jobs take it up)."""
        tasks = list(self.running)
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=grace)
        for task in pending:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*pending, return_exceptions=True)
