"""The chain watcher job: one pass over every network that has a JSON-RPC endpoint, networks side by side."""

from __future__ import annotations

import asyncio
import logging

from server.aml import Screening
from server.rails.registry import chain_scanners
from server.runtime import Runtime
from server.watcher import NetworkWatcher

log = logging.getLogger("paygate.scheduler")
INTERVAL_SECONDS = 3

# Per process and runtime: the watchers keep their JSON-RPC connections between passes. Nothing here needs to
# survive a restart; the cursors are in the database.
_watchers: dict[int, list[NetworkWatcher]] = {}


def watchers(rt: Runtime) -> list[NetworkWatcher]:
    if id(rt) not in _watchers:
        screening = Screening.from_settings(rt.settings)
        _watchers[id(rt)] = [NetworkWatcher(rt.db, rt.catalogue.networks[net_id], scanner, screening)
                             for net_id, scanner in chain_scanners(rt.catalogue).items()]
    return _watchers[id(rt)]


async def watch_chains(rt: Runtime) -> None:
    group = watchers(rt)
    results = await asyncio.gather(*(w.run_pass() for w in group), return_exceptions=True)
    for watcher, result in zip(group, results, strict=True):
        if isinstance(result, BaseException):
            log.error("chain watcher pass failed", exc_info=result, extra={"network": watcher.network.id})
