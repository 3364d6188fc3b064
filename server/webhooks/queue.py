"""Which deliveries exist: one pending attempt per subscribed endpoint when an event is recorded (an outbox
subscriber, so in the event's own transaction), a new one on resend, and the attempt log of an event."""

from __future__ import annotations

from typing import NamedTuple, cast

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.db.prepared import Prepared
from server.db.sets import on_postgres, one_of
from server.events.models import Event
from server.ids import new_id
from server.paging import Page, newest_first
from server.webhooks.models import Delivery, DeliveryStatus, WebhookEndpoint

ALL_EVENTS = "*"


def subscribed(enabled_events: list[str], event_type: str) -> bool:
    return ALL_EVENTS in enabled_events or event_type in enabled_events


def _pending(event: Event, endpoint: WebhookEndpoint | Subscriber, *, attempt: int, now: int) -> Delivery:
    return Delivery(id=new_id("evtd"), event_id=event.id, endpoint_id=endpoint.id, merchant_id=event.merchant_id,
                    object_id=event.object_id, event_sort_key=event.sort_key, attempt=attempt, due_at=now,
                    window_start=now, url=endpoint.url)


_ENDPOINTS = cast(sa.Table, WebhookEndpoint.__table__)  # type: ignore[attr-defined]


def _active(merchant_id: str | sa.BindParameter[str],
            livemode: bool | sa.BindParameter[bool]) -> tuple[sa.ColumnElement[bool], ...]:
    """The one rule for which endpoints receive a merchant's events in a mode."""
    return (_ENDPOINTS.c.merchant_id == merchant_id, _ENDPOINTS.c.livemode == livemode,
            _ENDPOINTS.c.disabled.is_(False), _ENDPOINTS.c.deleted_at.is_(None))


async def active_endpoints(session: AsyncSession, merchant_id: str, livemode: bool) -> list[WebhookEndpoint]:
    rows = await session.exec(select(WebhookEndpoint).where(*_active(merchant_id, livemode)))
    return list(rows)


class Subscriber(NamedTuple):
    """What fan-out needs of an endpoint: a plain row, not an ORM object (it runs for every event written)."""

    id: str
    url: str
    enabled_events: list[str]


# Read for every event written: prepared (server/db/prepared.py).
_SUBSCRIBERS = Prepared(sa.select(_ENDPOINTS.c.id, _ENDPOINTS.c.url, _ENDPOINTS.c.enabled_events)
                        .where(*_active(sa.bindparam("merchant_id"), sa.bindparam("livemode"))))


async def _endpoints_of(session: AsyncSession, merchant_id: str, livemode: bool) -> list[Subscriber]:
    """The active endpoints, looked up once per transaction: a transaction recording many events (a batch job)
    makes one query, not one per event. Endpoints are never changed in a transaction that records events."""
    transaction = session.get_transaction()
    held = session.info.get("webhook_endpoints")
    if held is None or held[0] is not transaction:  # a session reused for another transaction starts afresh
        held = session.info["webhook_endpoints"] = (transaction, {})
    cache: dict[tuple[str, bool], list[Subscriber]] = held[1]
    key = (merchant_id, livemode)
    if key not in cache:
        rows = await _SUBSCRIBERS.rows(session, {"merchant_id": merchant_id, "livemode": livemode})
        cache[key] = [Subscriber(*row) for row in rows]
    return cache[key]


async def fan_out(session: AsyncSession, event: Event) -> None:
    """The outbox subscriber: the event's deliveries are committed with the event, or neither is. At most
    MAX_ENDPOINTS_PER_MODE rows per event (service.py)."""
    for endpoint in await _endpoints_of(session, event.merchant_id, event.livemode):
        if subscribed(endpoint.enabled_events, event.type):
            session.add(_pending(event, endpoint, attempt=1, now=event.created))


async def resend(session: AsyncSession, event: Event, endpoints: list[WebhookEndpoint]) -> list[Delivery]:
    """A new attempt of `event` to each endpoint, due now; an attempt already waiting is returned, not doubled."""
    now = now_of(session)
    out: list[Delivery] = []
    for endpoint in endpoints:
        rows = list(await session.exec(select(Delivery).where(
            col(Delivery.event_id) == event.id, col(Delivery.endpoint_id) == endpoint.id)))
        waiting = next((r for r in rows if r.status == DeliveryStatus.PENDING), None)
        if waiting is None:
            # A fresh three-day window: the merchant asked for it.
            waiting = _pending(event, endpoint, attempt=max((r.attempt for r in rows), default=0) + 1, now=now)
            session.add(waiting)
        out.append(waiting)
    return out


async def attempts_of(session: AsyncSession, event_id: str, page: Page) -> tuple[list[Delivery], int]:
    return await newest_first(session, Delivery, [col(Delivery.event_id) == event_id], page)


async def pending_counts(session: AsyncSession, event_ids: list[str]) -> dict[str, int]:
    """`pending_webhooks` of each event: its deliveries not yet answered with a 2xx and still to be tried."""
    if not event_ids:
        return {}
    # The status is counted, not filtered on: a `status = 'pending'` condition lets PostgreSQL's planner, with
    # statistics older than a fast-growing backlog, walk a partial index of every pending attempt instead of looking
    # up the events (5.7 ms against 0.2 ms for a claim's 100 events, bench/RESULTS.md twelfth session).
    pending = sa.func.count().filter(col(Delivery.status) == DeliveryStatus.PENDING)
    rows = await session.exec(
        select(Delivery.event_id, pending)
        .where(one_of(col(Delivery.event_id), event_ids, postgres=on_postgres(session)))
        .group_by(col(Delivery.event_id)))
    return {event_id: int(n) for event_id, n in rows}

