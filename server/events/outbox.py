"""`record()`: the one way an event is written, inside the caller's unit of work.

The snapshot is the resource exactly as the JSON API shows it (the wire codec), so a webhook receiver and a
`GET` of the same object see the same shape. Subscribers of the outbox (webhook delivery) hook in with `subscribe(db,
…)` from their package's `register(runtime)`, and run inside the same transaction, so an event and its deliveries
are committed together or not at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import sqlalchemy as sa
from google.protobuf.message import Message
from sqlalchemy.orm import Session
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.clock import now_of
from server.db import Database
from server.db.construct import insert_new, new_row
from server.db.engine import hooks_of
from server.events.models import Event
from server.ids import new_id
from wire.codec import dumps, encode

API_VERSION = "2026-11-22"

# Called with (session, event) for every recorded event, in the same transaction.
Subscriber = Callable[[AsyncSession, Event], Awaitable[None]]
EVENT_RECORDED = "events.recorded"
# A unit of work that writes many events (a renewal sweep's batch) sets this in `session.info`: its events are
# kept as plain rows and inserted together, one multi-row INSERT, at its next flush (autoflush before any query, the
# commit at the latest) and before any row of that flush (a subscriber's delivery refers to its event); no ORM object
# is made for them unless a subscriber is there to receive one. The event and its subscribers' rows still commit
# together.
DEFER_FLUSH = "events.defer_flush"
_DEFERRED_ROWS = "events.deferred_rows"


def subscribe(db: Database, subscriber: Subscriber) -> None:
    db.hooks.add(EVENT_RECORDED, subscriber)


def snapshot(resource: Message) -> dict[str, Any]:
    return encode(resource)


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """`previous_attributes`: the old values of the top-level fields that changed."""
    return {k: v for k, v in before.items() if after.get(k) != v}


async def record(session: AsyncSession, *, merchant_id: str, livemode: bool, type: str, resource: Message,
                 previous_attributes: dict[str, Any] | None = None, before: dict[str, Any] | None = None) -> None:
    """The event with `resource` as the API shows it now. `previous_attributes` are what changed: given, or computed
    from `before` (the resource's snapshot before the change)."""
    await record_each(session, merchant_id=merchant_id, livemode=livemode, types=[type], resource=resource,
                      previous_attributes=previous_attributes, before=before)


async def record_each(session: AsyncSession, *, merchant_id: str, livemode: bool, types: Sequence[str],
                      resource: Message, previous_attributes: dict[str, Any] | None = None,
                      before: dict[str, Any] | None = None) -> None:
    """One event per type in `types`, in that order, all showing `resource` as it is now (an invoice created and
    finalized at once): its snapshot is taken and serialized once."""
    data = snapshot(resource)
    if before is not None and previous_attributes is None:
        previous_attributes = changed(before, data)
    text = dumps({"object": data, "previous_attributes": previous_attributes}).decode()
    object_id, created = str(data.get("id", "")), now_of(session)
    deferred = bool(session.info.get(DEFER_FLUSH))
    subscribers = hooks_of(session).of(EVENT_RECORDED)
    for type_ in types:
        # sort_key given, not defaulted: a default factory costs pydantic a signature inspection per row.
        row: dict[str, Any] = dict(
            id=new_id("evt"), merchant_id=merchant_id, livemode=livemode, type=type_, api_version=API_VERSION,
            object_type=str(data.get("object") or type_.split(".")[0]), object_id=object_id, data=text,
            created=created, sort_key=clock.sort_key())
        if deferred:
            _defer(session, row)
            if not subscribers:
                continue
            event = new_row(Event, **row)  # for the subscribers only: inserted as the plain row above
        else:
            # Written at once, outside the unit of work (after what the session holds): subscribers' rows refer to it.
            event = new_row(Event, **row)
            await insert_new(session, event)
        for subscriber in subscribers:
            await subscriber(session, event)


def _defer(session: AsyncSession, row: dict[str, Any]) -> None:
    rows: list[dict[str, Any]] | None = session.info.get(_DEFERRED_ROWS)
    if rows is None:
        rows = session.info[_DEFERRED_ROWS] = []
        sync = session.sync_session
        if not sa.event.contains(sync, "before_flush", _insert_deferred):
            sa.event.listen(sync, "before_flush", _insert_deferred)
            sa.event.listen(sync, "before_commit", _insert_deferred)
            sa.event.listen(sync, "after_rollback", _drop_deferred)
    rows.append(row)


def _insert_deferred(session: Session, *_: Any) -> None:
    """Before a flush (its rows may refer to the events) or the commit (when nothing else is left to flush)."""
    rows = session.info.pop(_DEFERRED_ROWS, None)
    if rows:
        session.connection().execute(sa.insert(_EVENTS), rows)


def _drop_deferred(session: Session) -> None:
    session.info.pop(_DEFERRED_ROWS, None)


_EVENTS = cast(sa.Table, Event.__table__)  # type: ignore[attr-defined]
