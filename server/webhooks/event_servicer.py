"""The events API (DESIGN §7): events with their deliveries' state and resends, so it lives with the webhooks that
deliver them; `server/events` stays below, the outbox every package writes to."""

from __future__ import annotations

import grpc
from paygate.v1 import events_pb2 as pb
from paygate.v1 import events_pb2_grpc

from server.context import current_caller
from server.errors import invalid
from server.events import service
from server.events.convert import to_proto
from server.paging import page_of
from server.runtime import Runtime
from server.webhooks import queue
from server.webhooks import service as endpoints
from server.webhooks.convert import delivery_to_proto


class EventServicer(events_pb2_grpc.EventServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def ListEvents(self, request: pb.ListEventsRequest,
                         context: grpc.aio.ServicerContext) -> pb.ListEventsResponse:
        page = page_of(request)
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, request)
            pending = await queue.pending_counts(session, [r.id for r in rows])
        return pb.ListEventsResponse(events=[to_proto(r, pending.get(r.id, 0)) for r in rows], total=total,
                                     page=page.page, page_size=page.size)

    async def GetEvent(self, request: pb.GetEventRequest, context: grpc.aio.ServicerContext) -> pb.GetEventResponse:
        async with self._rt.db.read() as session:
            row = await service.get(session, current_caller(), request.id)
            pending = await queue.pending_counts(session, [row.id])
        return pb.GetEventResponse(event=to_proto(row, pending.get(row.id, 0)))

    async def ResendEvent(self, request: pb.ResendEventRequest,
                          context: grpc.aio.ServicerContext) -> pb.ResendEventResponse:
        caller = current_caller()
        async with self._rt.db.transaction() as session:
            event = await service.get(session, caller, request.id)
            if request.HasField("endpoint_id"):
                endpoint = await endpoints.find(session, caller, request.endpoint_id)
                if endpoint is None:
                    raise invalid("endpoint_id", "no such webhook endpoint")
                if endpoint.disabled:
                    raise invalid("endpoint_id", "the webhook endpoint is disabled; enable it first")
                targets = [endpoint]
            else:
                targets = [e for e in await queue.active_endpoints(session, caller.merchant_id, caller.livemode)
                           if queue.subscribed(e.enabled_events, event.type)]
            deliveries = await queue.resend(session, event, targets)
        return pb.ResendEventResponse(deliveries=[delivery_to_proto(d) for d in deliveries])

    async def ListEventDeliveries(self, request: pb.ListEventDeliveriesRequest,
                                  context: grpc.aio.ServicerContext) -> pb.ListEventDeliveriesResponse:
        page = page_of(request)
        async with self._rt.db.read() as session:
            await service.get(session, current_caller(), request.id)
            rows, total = await queue.attempts_of(session, request.id, page)
        return pb.ListEventDeliveriesResponse(deliveries=[delivery_to_proto(r) for r in rows], total=total,
                                              page=page.page, page_size=page.size)
