from __future__ import annotations

import grpc
from paygate.v1 import orders_pb2 as pb
from paygate.v1 import orders_pb2_grpc

from server.context import current_caller
from server.errors import invalid
from server.orders import service
from server.orders.convert import to_proto
from server.paging import page_of
from server.runtime import Runtime


class OrderServicer(orders_pb2_grpc.OrderServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def ListOrders(self, request: pb.ListOrdersRequest,
                         context: grpc.aio.ServicerContext) -> pb.ListOrdersResponse:
        page = page_of(request)
        if request.status and request.status not in service.STATUSES:
            raise invalid("status", f"must be one of {', '.join(service.STATUSES)}")
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, request.status)
        return pb.ListOrdersResponse(orders=[to_proto(r) for r in rows], total=total, page=page.page,
                                     page_size=page.size)

    async def GetOrder(self, request: pb.GetOrderRequest, context: grpc.aio.ServicerContext) -> pb.GetOrderResponse:
        async with self._rt.db.read() as session:
            row = await service.get(session, current_caller(), request.id)
        return pb.GetOrderResponse(order=to_proto(row))
