"""The jobs of this build. Each is safe to run in several scheduler processes at once: a DELETE of lapsed rows
claims nothing and does the same work whoever runs it."""

from __future__ import annotations

import logging

from scheduler.chain_watch import INTERVAL_SECONDS as CHAIN_WATCH_SECONDS
from scheduler.chain_watch import watch_chains
from server import clock
from server.customers.identity import purge_expired as purge_customer_tokens
from server.idempotency.store import purge_expired as purge_idempotency_keys
from server.payment_intents.expiry import INTERVAL_SECONDS as EXPIRY_SECONDS
from server.payment_intents.expiry import expire_payment_intents
from server.refunds.sender import INTERVAL_SECONDS as REFUND_SECONDS
from server.refunds.sender import send_refunds
from server.runtime import Runtime
from server.webhooks import delivery as webhooks

log = logging.getLogger("paygate.scheduler")


async def purge_lapsed(rt: Runtime) -> None:
    keys = await purge_idempotency_keys(rt.db)
    async with rt.db.transaction() as session:
        tokens = await purge_customer_tokens(session, clock.now())
    if keys or tokens:
        log.info("purged lapsed rows", extra={"idempotency_keys": keys, "tokens": tokens})


# (job, interval in seconds)
JOBS = [(purge_lapsed, 600), (webhooks.deliver_webhooks, webhooks.poll_seconds()),
        (expire_payment_intents, EXPIRY_SECONDS)]
JOBS.append((watch_chains, CHAIN_WATCH_SECONDS))
JOBS.append((send_refunds, REFUND_SECONDS))
