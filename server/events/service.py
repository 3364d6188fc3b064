"""Reading events: scoped to the caller's merchant and mode, newest first."""

from __future__ import annotations

import sqlalchemy as sa
from paygate.v1 import events_pb2
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.errors import NotFound, invalid
from server.events.models import Event
from server.paging import Page
from server.rpc.context import Caller

MAX_TYPE_LENGTH = 100


async def get(session: AsyncSession, caller: Caller, event_id: str) -> Event:
    row = await session.get(Event, event_id) if event_id else None
    if row is None or row.merchant_id != caller.merchant_id or row.livemode != caller.livemode:
        raise NotFound("event", event_id)
    return row


async def list_page(session: AsyncSession, caller: Caller, page: Page,
                    request: events_pb2.ListEventsRequest) -> tuple[list[Event], int]:
    where = [col(Event.merchant_id) == caller.merchant_id, col(Event.livemode) == caller.livemode]
    if request.type:
        if len(request.type) > MAX_TYPE_LENGTH:
            raise invalid("type", f"at most {MAX_TYPE_LENGTH} characters")
        where.append(col(Event.type) == request.type)
    if request.HasField("created_gte"):
        where.append(col(Event.created) >= request.created_gte)
    if request.HasField("created_lte"):
        where.append(col(Event.created) <= request.created_lte)
    if request.HasField("created_gte") and request.HasField("created_lte") and \
            request.created_gte > request.created_lte:
        raise invalid("created_gte", "must not be after created_lte")
    total = (await session.exec(select(sa.func.count()).select_from(Event).where(*where))).one()
    rows = await session.exec(select(Event).where(*where).order_by(col(Event.sort_key).desc())
                              .offset(page.offset).limit(page.size))
    return list(rows), int(total)
