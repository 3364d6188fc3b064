"""`record()`: the one way an event is written, inside the caller's unit of work.

The snapshot is the resource exactly as the JSON API shows it (the facade's codec), so a webhook receiver and a
`GET` of the same object see the same shape. Subscribers of the outbox (webhook delivery) hook in through
`SUBSCRIBERS`, also inside the same transaction, so an event and its deliveries are committed together or not at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from google.protobuf.message import Message
from sqlmodel.ext.asyncio.session import AsyncSession

from gateway_http.codec import encode
from gateway_http.envelope import dumps
from server import clock
from server.events.models import Event
from server.ids import new_id

API_VERSION = "2026-11-22"

# Called with (session, event) for every recorded event, in the same transaction.
Subscriber = Callable[[AsyncSession, Event], Awaitable[None]]
SUBSCRIBERS: list[Subscriber] = []


def snapshot(resource: Message) -> dict[str, Any]:
    return encode(resource)


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """`previous_attributes`: the old values of the top-level fields that changed."""
    return {k: v for k, v in before.items() if after.get(k) != v}


async def record(session: AsyncSession, *, merchant_id: str, livemode: bool, type: str, resource: Message,
                 previous_attributes: dict[str, Any] | None = None) -> Event:
    data = snapshot(resource)
    event = Event(
        id=new_id("evt"), merchant_id=merchant_id, livemode=livemode, type=type, api_version=API_VERSION,
        object_type=str(data.get("object") or type.split(".")[0]), object_id=str(data.get("id", "")),
        data=dumps({"object": data, "previous_attributes": previous_attributes}).decode(), created=clock.now(),
    )
    session.add(event)
    await session.flush()
    for subscriber in SUBSCRIBERS:
        await subscriber(session, event)
    return event
