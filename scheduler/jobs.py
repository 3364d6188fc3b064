"""The scheduler's own jobs (the packages register theirs: server/boot/composition.py). Each is safe to run in several
scheduler processes at once: a DELETE of lapsed rows claims nothing and does the same work whoever runs it."""

from __future__ import annotations

import logging

from scheduler import chain_watch
from server.customers.identity import purge_expired as purge_customer_tokens
from server.idempotency.store import purge_expired as purge_idempotency_keys
from server.runtime import Runtime

log = logging.getLogger("paygate.scheduler")


async def purge_lapsed(rt: Runtime) -> None:
    keys = await purge_idempotency_keys(rt.db)
    async with rt.db.transaction() as session:
        tokens = await purge_customer_tokens(session, rt.clock.now())
    if keys or tokens:
        log.info("purged lapsed rows", extra={"idempotency_keys": keys, "tokens": tokens})


def register(rt: Runtime) -> None:
    rt.add_job("purge_lapsed", purge_lapsed, 600)
    chain_watch.register(rt)
