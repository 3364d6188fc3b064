"""Subscriptions' part of the composition root: the outbox subscriber that moves subscriptions when their intents
move (in the event's transaction), the hook that brings forward a close waiting on a payment that stopped, and the
renewal job on the wall clock."""

from __future__ import annotations

import logging
from collections.abc import Callable

from server.events import outbox
from server.payment_intents import settle
from server.runtime import Runtime
from server.subscriptions import lifecycle, renewal
from server.subscriptions.servicer import SubscriptionServicer, collector_of

log = logging.getLogger("paygate.subscriptions")


# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.SubscriptionService": SubscriptionServicer,
}


async def renew_subscriptions(rt: Runtime) -> None:
    """Period ends, dunning, auto-resume and scheduled cancels of subscriptions on the wall clock."""
    count = await renewal.renew_due(rt.db, collector_of(rt))
    if count:
        log.info("subscriptions renewed", extra={"count": count})


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
    outbox.subscribe(rt.db, lifecycle.on_event)
    rt.db.hooks.add(settle.PAYMENT_STOPPED, lifecycle.on_payment_stopped)
    rt.add_job("renew_subscriptions", renew_subscriptions, renewal.INTERVAL_SECONDS)
