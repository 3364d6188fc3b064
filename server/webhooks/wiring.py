"""Webhooks' part of the composition root: the outbox subscriber that fans every event out to the subscribed
endpoints (in the event's transaction), and the delivery job."""

from __future__ import annotations

from server.events import outbox
from server.runtime import Runtime
from server.webhooks import delivery, queue


def register(rt: Runtime) -> None:
    outbox.subscribe(rt.db, queue.fan_out)
    rt.add_job("deliver_webhooks", delivery.deliver_webhooks, delivery.poll_seconds())
