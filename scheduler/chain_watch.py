"""The chain watcher job: one pass over every network that has a JSON-RPC endpoint, networks side by side."""

from __future__ import annotations

import asyncio
import logging

from server.runtime import Runtime
from server.watcher import NetworkWatcher

log = logging.getLogger("paygate.scheduler")
INTERVAL_SECONDS = 3

def watchers(rt: Runtime) -> list[NetworkWatcher]:
    """One watcher per watchable network of the runtime, over the runtime's chain rails and AML screening, each
    ending its passes with the balance audit when due (coin sent by contract calls, server/watcher/internal.py)."""
    return [NetworkWatcher(rt.db, rt.catalogue.networks[net_id], scanner, rt.screening, audit_balances=True)
            for net_id, scanner in rt.scanners.items()]


def register(rt: Runtime) -> None:
    # Built once per runtime and kept by the job: the watchers keep their JSON-RPC connections between passes.
    # Nothing here needs to survive a restart; the cursors are in the database.
    group = watchers(rt)

    async def watch_chains(rt: Runtime) -> None:
        await watch(group)

    rt.add_job("watch_chains", watch_chains, INTERVAL_SECONDS)


async def watch(group: list[NetworkWatcher]) -> None:
    results = await asyncio.gather(*(w.run_pass() for w in group), return_exceptions=True)
    for watcher, result in zip(group, results, strict=True):
        if isinstance(result, BaseException):
            log.error("chain watcher pass failed", exc_info=result, extra={"network": watcher.network.id})
