"""Which deliveries exist: one pending attempt per subscribed endpoint when an event is recorded (an outbox
subscriber, so in the event's own transaction), a new one on resend, and the attempt log of an event."""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.clock import now_of
from server.db.prepared import Prepared
from server.db.sets import on_postgres, one_of
from server.events.models import Event
from server.events.outbox import DEFER_FLUSH
from server.ids import BASE62, new_id
from server.paging import Page, newest_first
from server.webhooks.models import Delivery, DeliveryStatus, WebhookEndpoint

ALL_EVENTS = "*"
# Endpoints of one merchant in one mode: bounds the deliveries an event's transaction writes (one per endpoint).
MAX_ENDPOINTS_PER_MODE = 16


def subscribed(enabled_events: list[str], event_type: str) -> bool:
    """Whether an endpoint with `enabled_events` receives events of `event_type`. `_Subscribed` is the same rule in
    SQL, for the fan-out's INSERT; tests/unit/webhooks/test_fan_out.py holds the two to the same cases."""
    return ALL_EVENTS in enabled_events or event_type in enabled_events


class _Subscribed(FunctionElement[bool]):
    """`subscribed(endpoint.enabled_events, :type)` in SQL, on a JSON array of strings."""

    type = sa.Boolean()
    inherit_cache = True
    name = "paygate_subscribed"


@compiles(_Subscribed, "postgresql")
def _subscribed_on_postgres(element: _Subscribed, compiler: Any, **kw: Any) -> str:
    enabled, event_type = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"({enabled} ?| CAST(ARRAY['{ALL_EVENTS}', {event_type}] AS TEXT[]))"


@compiles(_Subscribed)  # SQLite, and the generic compiler that finds a statement's parameters
def _subscribed_on_sqlite(element: _Subscribed, compiler: Any, **kw: Any) -> str:
    enabled, event_type = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"EXISTS (SELECT 1 FROM json_each({enabled}) WHERE json_each.value IN ('{ALL_EVENTS}', {event_type}))"


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


def _fan_out_statement() -> Prepared:
    """One pending attempt per active endpoint subscribed to the event, in one INSERT … SELECT: the unit of work
    needs no answer from the database before its COMMIT, so on PostgreSQL the event, its deliveries and the COMMIT
    go in one round trip (server/db/pg_pipeline.py).

    A delivery's id is the event's with the endpoint's rank in place of its last two characters
    (`evtd_` + 22 of the event id's random characters + `0` + the rank in base62): unique, since event ids are, and
    made by the database, which alone knows how many endpoints there are. Its `sort_key`s are `sort_key` + rank - 1,
    reserved in this process (`clock.sort_keys`)."""
    rank = sa.cast(sa.func.row_number().over(order_by=(_ENDPOINTS.c.sort_key, _ENDPOINTS.c.id)), sa.Integer)
    event_id = sa.bindparam("event_id", type_=sa.String)
    given: dict[str, Any] = {
        "id": sa.literal("evtd_") + sa.func.substr(event_id, 5, 22) + sa.literal("0")
        + sa.func.substr(sa.literal(BASE62), rank + 1, 1),
        "event_id": event_id,
        "endpoint_id": _ENDPOINTS.c.id,
        "merchant_id": sa.bindparam("merchant_id", type_=sa.String),
        "object_id": sa.bindparam("object_id", type_=sa.String),
        "event_sort_key": sa.bindparam("event_sort_key", type_=sa.BigInteger),
        "attempt": sa.literal(1, sa.Integer),
        "status": sa.literal(DeliveryStatus.PENDING.value, sa.String),
        "due_at": sa.bindparam("now", type_=sa.BigInteger),
        "window_start": sa.bindparam("now", type_=sa.BigInteger),
        "url": _ENDPOINTS.c.url,
        "sort_key": sa.bindparam("sort_key", type_=sa.BigInteger) + rank - 1,
    }
    columns = list(_DELIVERIES.columns)
    values = []
    for column in columns:
        if column.key in given:
            values.append(given[column.key].label(column.key))
            continue
        field = Delivery.model_fields[column.key]
        if field.default_factory is not None:
            raise TypeError(f"fan-out: give event_deliveries.{column.key} (it has a default factory)")
        values.append((sa.null() if field.default is None else sa.literal(field.default, column.type))
                      .label(column.key))
    select_ = sa.select(*values).where(*_active(sa.bindparam("merchant_id", type_=sa.String),
                                                sa.bindparam("livemode", type_=sa.Boolean)),
                                       _Subscribed(_ENDPOINTS.c.enabled_events, sa.bindparam("type", type_=sa.String)))
    return Prepared(sa.insert(_DELIVERIES).from_select(columns, select_))


_DELIVERIES = cast(sa.Table, Delivery.__table__)  # type: ignore[attr-defined]
if len(BASE62) <= MAX_ENDPOINTS_PER_MODE:
    raise RuntimeError("a delivery id holds an endpoint's rank in one base62 character")
_FAN_OUT = _fan_out_statement()


async def fan_out(session: AsyncSession, event: Event) -> None:
    """The outbox subscriber: the event's deliveries are committed with the event, or neither is. At most
    MAX_ENDPOINTS_PER_MODE rows per event."""
    if session.info.get(DEFER_FLUSH):
        # A batch of events (a renewal sweep) inserted together at the next flush: their deliveries are ORM rows
        # of that flush, and the endpoints are read once for the batch.
        for endpoint in await _endpoints_of(session, event.merchant_id, event.livemode):
            if subscribed(endpoint.enabled_events, event.type):
                session.add(_pending(event, endpoint, attempt=1, now=event.created))
        return
    await _FAN_OUT.write(session, {
        "event_id": event.id, "merchant_id": event.merchant_id, "livemode": event.livemode, "type": event.type,
        "object_id": event.object_id, "event_sort_key": event.sort_key, "now": event.created,
        "sort_key": clock.sort_keys(MAX_ENDPOINTS_PER_MODE)})


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

