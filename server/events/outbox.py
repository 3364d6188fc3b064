"""`record()`: the one way an event is written, inside the caller's unit of work.

The snapshot is the resource exactly as the JSON API shows it (the wire codec), so a webhook receiver and a
`GET` of the same object see the same shape. Subscribers of the outbox (webhook delivery) hook in with `subscribe(db,
…)` from their package's `register(runtime)`, and run inside the same transaction, so an event and its deliveries
are committed together or not at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from google.protobuf.message import Message
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.db import Database
from server.db.engine import hooks_of
from server.events.models import Event
from server.ids import new_id
from wire.codec import dumps, encode

API_VERSION = "2026-11-22"

# Called with (session, event) for every recorded event, in the same transaction.
Subscriber = Callable[[AsyncSession, Event], Awaitable[None]]
EVENT_RECORDED = "events.recorded"
# A unit of work that writes many events (a renewal sweep's batch) sets this in `session.info`: its events are
# inserted with everything else at its next flush (autoflush before any query, the commit at the latest) instead of
# one INSERT each. The event and its subscribers' rows still commit together.
DEFER_FLUSH = "events.defer_flush"


def subscribe(db: Database, subscriber: Subscriber) -> None:
    db.hooks.add(EVENT_RECORDED, subscriber)


def snapshot(resource: Message) -> dict[str, Any]:
    return encode(resource)


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """`previous_attributes`: the old values of the top-level fields that changed."""
    return {k: v for k, v in before.items() if after.get(k) != v}


async def record(session: AsyncSession, *, merchant_id: str, livemode: bool, type: str, resource: Message,
                 previous_attributes: dict[str, Any] | None = None, before: dict[str, Any] | None = None) -> Event:
    """The event with `resource` as the API shows it now. `previous_attributes` are what changed: given, or computed
    from `before` (the resource's snapshot before the change)."""
    data = snapshot(resource)
    if before is not None and previous_attributes is None:
        previous_attributes = changed(before, data)
    event = Event(
        id=new_id("evt"), merchant_id=merchant_id, livemode=livemode, type=type, api_version=API_VERSION,
        object_type=str(data.get("object") or type.split(".")[0]), object_id=str(data.get("id", "")),
        data=dumps({"object": data, "previous_attributes": previous_attributes}).decode(), created=clock.now(),
        sort_key=clock.sort_key(),  # given, not defaulted: a default factory costs pydantic an inspection per row
    )
    session.add(event)
    if not session.info.get(DEFER_FLUSH):
        await session.flush()
    for subscriber in hooks_of(session).of(EVENT_RECORDED):
        await subscriber(session, event)
    return event
