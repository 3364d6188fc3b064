from __future__ import annotations

from paygate.v1 import events_pb2, webhook_endpoints_pb2

from server.webhooks.models import Delivery, DeliveryStatus, WebhookEndpoint

_STATUS: dict[str, int] = {
    DeliveryStatus.PENDING: events_pb2.EVENT_DELIVERY_STATUS_PENDING,
    DeliveryStatus.SUCCEEDED: events_pb2.EVENT_DELIVERY_STATUS_SUCCEEDED,
    DeliveryStatus.FAILED: events_pb2.EVENT_DELIVERY_STATUS_FAILED,
}


def endpoint_to_proto(row: WebhookEndpoint, *, secret: str = "") -> webhook_endpoints_pb2.WebhookEndpoint:
    """`secret`: the signing secret in clear, given only by create and rotate (the row holds it sealed)."""
    out = webhook_endpoints_pb2.WebhookEndpoint(
        id=row.id, object="webhook_endpoint", url=row.url, enabled_events=row.enabled_events,
        description=row.description, disabled=row.disabled, secret=secret,
        api_version=row.api_version, livemode=row.livemode, created=row.created, updated=row.updated,
    )
    if row.previous_secret and row.previous_secret_expires_at is not None:
        out.previous_secret_expires_at = row.previous_secret_expires_at
    return out


def delivery_to_proto(row: Delivery) -> events_pb2.EventDelivery:
    out = events_pb2.EventDelivery(
        id=row.id, object="event_delivery", event_id=row.event_id, endpoint_id=row.endpoint_id, url=row.url,
        attempt=row.attempt, status=_STATUS[row.status], http_status=row.http_status, latency_ms=row.latency_ms,
        response_excerpt=row.response_excerpt,
        created=row.attempted_at if row.attempted_at is not None else row.due_at,
    )
    if row.next_attempt_at is not None:
        out.next_attempt_at = row.next_attempt_at
    return out
