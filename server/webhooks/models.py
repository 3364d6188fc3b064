"""Webhook endpoints and the delivery attempts of events to them."""

from __future__ import annotations

from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import JSONType


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # to be tried (again) when due
    SUCCEEDED = "succeeded"  # answered with a 2xx
    FAILED = "failed"  # this attempt failed; a retry, if any, is a new pending row


class WebhookEndpoint(SQLModel, table=True):
    __tablename__ = "webhook_endpoints"
    __table_args__ = (sa.Index("ix_webhook_endpoints_scope_newest", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    url: str = Field(max_length=2000)
    enabled_events: list[str] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    description: str = Field(default="", max_length=1000)
    disabled: bool = False
    # Sealed (sealing.py): an HMAC key must be readable to sign with (unlike API keys, which are only compared),
    # so it is encrypted rather than hashed.
    secret: str = Field(max_length=255)
    # The secret before the last rotation (sealed); it signs too (a second `v1=`) until previous_secret_expires_at.
    previous_secret: str = Field(default="", max_length=255)
    previous_secret_expires_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    api_version: str = Field(max_length=10)
    created: int = Field(sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    # A tombstone: the attempts already made still name the endpoint.
    deleted_at: int | None = Field(default=None, sa_type=sa.BigInteger)


_PENDING = sa.text(f"status = '{DeliveryStatus.PENDING.value}'")


class Delivery(SQLModel, table=True):
    """One attempt to deliver one event to one endpoint: scheduled (`pending`), then `succeeded` or `failed`.

    A failed attempt with time left schedules the next one as a new row, so the table is also the attempt log.
    (event_id, endpoint_id, attempt) is unique: whatever the number of schedulers, an attempt is sent once.
    """

    __tablename__ = "event_deliveries"
    __table_args__ = (
        sa.UniqueConstraint("event_id", "endpoint_id", "attempt", name="uq_event_deliveries_attempt"),
        # Partial: only attempts still to make, however long the attempt log grows. The claim walks this one in
        # its own order (due time, then event order) and stops after a batch (server/webhooks/delivery.py).
        sa.Index("ix_event_deliveries_pending", "due_at", "event_sort_key", postgresql_where=_PENDING,
                 sqlite_where=_PENDING),
        # Per-endpoint ordering of the events of one object: an older pending event of the same object.
        sa.Index("ix_event_deliveries_pending_object", "endpoint_id", "object_id", "event_sort_key",
                 postgresql_where=_PENDING, sqlite_where=_PENDING),
        sa.Index("ix_event_deliveries_event", "event_id", "sort_key"),
    )

    id: str = Field(primary_key=True, max_length=40)
    event_id: str = Field(foreign_key="events.id", max_length=40)
    endpoint_id: str = Field(foreign_key="webhook_endpoints.id", max_length=40)
    merchant_id: str = Field(max_length=40)
    # Copied from the event so that ordering needs no join: events of one object go out oldest first.
    object_id: str = Field(max_length=40)
    event_sort_key: int = Field(sa_type=sa.BigInteger)
    attempt: int = 1
    status: str = Field(default=DeliveryStatus.PENDING, max_length=12)  # DeliveryStatus
    # When a pending attempt is due; retries stop once the next one would be later than window_start + 3 days.
    due_at: int = Field(sa_type=sa.BigInteger)
    window_start: int = Field(sa_type=sa.BigInteger)
    # A claim: the scheduler that holds it sends the attempt; after this time another may take it over.
    locked_until: int | None = Field(default=None, sa_type=sa.BigInteger)
    lease: str = Field(default="", max_length=40)
    url: str = Field(default="", max_length=2000)
    http_status: int = 0
    latency_ms: int = Field(default=0, sa_type=sa.BigInteger)
    response_excerpt: str = Field(default="", max_length=1000)
    attempted_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    next_attempt_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
