"""Event rows → the Event resource: the one shape `GET /v1/events/{id}` shows and webhooks deliver."""

from __future__ import annotations

import simplejson
from paygate.v1 import events_pb2

from server.events.models import Event
from wire.codec import dumps, encode


def to_proto(row: Event, pending_webhooks: int = 0) -> events_pb2.Event:
    # Decimals stay Decimal from the stored text to the wire: the snapshot's digits are kept exactly.
    data = simplejson.loads(row.data, use_decimal=True)
    previous = data.get("previous_attributes")
    return events_pb2.Event(
        id=row.id, object="event", api_version=row.api_version, created=row.created, livemode=row.livemode,
        pending_webhooks=pending_webhooks, type=row.type,
        data=events_pb2.EventData(object=dumps(data.get("object") or {}).decode(),
                                  previous_attributes=dumps(previous).decode() if previous is not None else ""),
    )


def body(event: events_pb2.Event) -> bytes:
    """The webhook body: the event's JSON exactly as the API shows it, as the bytes that are signed and sent."""
    return dumps(encode(event))
