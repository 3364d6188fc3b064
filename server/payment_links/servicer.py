from __future__ import annotations

import grpc
from paygate.v1 import payment_links_pb2 as pb
from paygate.v1 import payment_links_pb2_grpc

from server.context import current_caller
from server.paging import page_of
from server.payment_links import service
from server.payment_links.convert import product_of, to_proto, url_of
from server.runtime import Runtime


class PaymentLinkServicer(payment_links_pb2_grpc.PaymentLinkServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._base = rt.settings.checkout_base

    async def CreatePaymentLink(self, request: pb.CreatePaymentLinkRequest,
                                context: grpc.aio.ServicerContext) -> pb.CreatePaymentLinkResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.create(session, current_caller(), request)
        return pb.CreatePaymentLinkResponse(payment_link=to_proto(loaded, self._base))

    async def ListPaymentLinks(self, request: pb.ListPaymentLinksRequest,
                               context: grpc.aio.ServicerContext) -> pb.ListPaymentLinksResponse:
        page = page_of(request)
        active = request.active if request.HasField("active") else None
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, active, request.product)
        return pb.ListPaymentLinksResponse(payment_links=[to_proto(r, self._base) for r in rows], total=total,
                                           page=page.page, page_size=page.size)

    async def GetPaymentLink(self, request: pb.GetPaymentLinkRequest,
                             context: grpc.aio.ServicerContext) -> pb.GetPaymentLinkResponse:
        async with self._rt.db.read() as session:
            loaded = await service.get(session, current_caller(), request.id)
        return pb.GetPaymentLinkResponse(payment_link=to_proto(loaded, self._base, with_price_range=True))

    async def UpdatePaymentLink(self, request: pb.UpdatePaymentLinkRequest,
                                context: grpc.aio.ServicerContext) -> pb.UpdatePaymentLinkResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.set_active(session, current_caller(), request)
        link = loaded.link
        return pb.UpdatePaymentLinkResponse(id=link.id, active=link.active, url=url_of(self._base, link.id),
                                            product=product_of(loaded), updated_at=link.updated_at)

    async def DeletePaymentLink(self, request: pb.DeletePaymentLinkRequest,
                                context: grpc.aio.ServicerContext) -> pb.DeletePaymentLinkResponse:
        async with self._rt.db.transaction() as session:
            await service.delete(session, current_caller(), request.id)
        return pb.DeletePaymentLinkResponse()
