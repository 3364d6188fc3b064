"""Webhooks' part of the composition root: the outbox subscriber that fans every event out to the subscribed
endpoints (in the event's transaction), and the delivery job."""

from __future__ import annotations

from collections.abc import Callable

from server.events import outbox
from server.runtime import Runtime
from server.webhooks import delivery, queue
from server.webhooks.event_servicer import EventServicer
from server.webhooks.servicer import WebhookEndpointServicer

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.EventService": EventServicer,  # events are read with their deliveries
    "paygate.v1.WebhookEndpointService": WebhookEndpointServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
    outbox.subscribe(rt.db, queue.fan_out)
    rt.add_job("deliver_webhooks", delivery.deliver_webhooks, delivery.poll_seconds())
