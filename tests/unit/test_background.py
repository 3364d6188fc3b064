"""server/background.py: work a call starts and does not wait for is kept alive, runs outside the call's context,
has its failure logged (never raised into nothing), and is drained, then cancelled, when the process stops."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import logging

import pytest

from server.background import Tasks

CALL = contextvars.ContextVar("call", default="none")


def test_work_runs_to_its_end_without_the_caller_holding_it() -> None:
    async def main() -> list[str]:
        tasks, seen = Tasks(), []

        async def work() -> None:
            await asyncio.sleep(0.05)
            seen.append("done")

        tasks.spawn(work(), name="work")  # the task object is dropped at once
        gc.collect()
        await tasks.close(5)
        assert tasks.running == {}
        return seen

    assert asyncio.run(main()) == ["done"]


def test_work_does_not_see_the_callers_context() -> None:
    async def main() -> str:
        tasks = Tasks()
        CALL.set("the request's")

        async def work() -> str:
            return CALL.get()

        task = tasks.spawn(work(), name="work")
        await tasks.close(5)
        return task.result()

    assert asyncio.run(main()) == "none"


def test_a_failure_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        tasks = Tasks()

        async def work() -> None:
            raise RuntimeError("provider exploded")

        tasks.spawn(work(), name="card refund rf_1")
        await tasks.close(5)

    with caplog.at_level(logging.ERROR, logger="paygate.background"):
        asyncio.run(main())
    [record] = caplog.records
    assert record.getMessage() == "background work failed" and record.__dict__["work"] == "card refund rf_1"


def test_close_waits_its_grace_then_cancels_what_is_left() -> None:
    async def main() -> tuple[bool, bool]:
        tasks = Tasks()
        quick = tasks.spawn(asyncio.sleep(0.01), name="quick")
        slow = tasks.spawn(asyncio.sleep(60), name="slow")
        await tasks.close(0.2)
        return quick.cancelled(), slow.cancelled()

    assert asyncio.run(main()) == (False, True)
