"""A scheduler process reduced to the chain watcher, for the two-process test: passes in a tight loop until a stop
file appears, every notify() and every claimed pass written as one JSON line to a log.

    python -m tests.e2e.chain.watch_runner DATABASE_URL NETWORKS_FILE LOG STOP_FILE DENIED_ADDRESS
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path

from sqlmodel.ext.asyncio.session import AsyncSession

from scheduler.chain_watch import watchers
from server.boot.composition import build_runtime
from server.chains import hooks
from server.chains.models import ChainTransfer
from server.config import load_settings


async def main(url: str, networks_file: str, log_path: str, stop_file: str, denied: str) -> None:
    settings = load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_NETWORKS": networks_file})
    settings = type(settings)(**{**settings.__dict__, "aml_deny_list": frozenset({denied.lower()})})
    rt = build_runtime(settings)  # the watcher's dependencies only: no package registers anything here
    db = rt.db
    log = open(log_path, "a", buffering=1)  # noqa: SIM115 - one line per write, for the test to read

    async def listener(session: AsyncSession, t: ChainTransfer, previous_status: str, previous_aml: str) -> None:
        log.write(json.dumps({"pid": os.getpid(), "at": time.time_ns(), "tx": t.tx_hash, "log_index": t.log_index,
                              "change": [previous_status, t.status, previous_aml, t.aml_status]}) + "\n")

    hooks.listen(db, listener)
    logging.basicConfig(level=logging.WARNING)
    group = watchers(rt)
    while not Path(stop_file).exists():
        for watcher in group:
            report = await watcher.run_pass()
            log.write(json.dumps({"pid": os.getpid(), "claimed": report.claimed, "blocks": report.blocks}) + "\n")
        await asyncio.sleep(0.01)
    await db.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
