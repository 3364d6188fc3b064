"""Reading events: scoped to the caller's merchant and mode, newest first."""

from __future__ import annotations

from paygate.v1 import events_pb2
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from server.context import Caller
from server.errors import invalid
from server.events.models import Event
from server.paging import Page, newest_first
from server.scoping import get_owned, in_scope

MAX_TYPE_LENGTH = 100


async def get(session: AsyncSession, caller: Caller, event_id: str) -> Event:
    return await get_owned(session, Event, event_id, caller, "event")


async def list_page(session: AsyncSession, caller: Caller, page: Page,
                    request: events_pb2.ListEventsRequest) -> tuple[list[Event], int]:
    where = in_scope(Event, caller)
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
    return await newest_first(session, Event, where, page)
