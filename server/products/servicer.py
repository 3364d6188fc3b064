from __future__ import annotations

import grpc
from paygate.v1 import products_pb2 as pb
from paygate.v1 import products_pb2_grpc

from server.context import current_caller
from server.paging import page_of
from server.products import service
from server.products.convert import to_proto
from server.runtime import Runtime


class ProductServicer(products_pb2_grpc.ProductServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def CreateProduct(self, request: pb.CreateProductRequest,
                            context: grpc.aio.ServicerContext) -> pb.CreateProductResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.create(session, current_caller(), self._rt.catalogue, request)
        return pb.CreateProductResponse(product=to_proto(loaded))

    async def ListProducts(self, request: pb.ListProductsRequest,
                           context: grpc.aio.ServicerContext) -> pb.ListProductsResponse:
        page = page_of(request, max_size=service.MAX_PAGE_SIZE)
        active = request.active if request.HasField("active") else None
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, active)
        return pb.ListProductsResponse(products=[to_proto(r) for r in rows], total=total,
                                       page=page.page, page_size=page.size)

    async def GetProduct(self, request: pb.GetProductRequest,
                         context: grpc.aio.ServicerContext) -> pb.GetProductResponse:
        async with self._rt.db.read() as session:
            loaded = await service.get(session, current_caller(), request.id)
        return pb.GetProductResponse(product=to_proto(loaded))

    async def UpdateProduct(self, request: pb.UpdateProductRequest,
                            context: grpc.aio.ServicerContext) -> pb.UpdateProductResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.update(session, current_caller(), self._rt.catalogue, request)
        return pb.UpdateProductResponse(product=to_proto(loaded))

    async def DeleteProduct(self, request: pb.DeleteProductRequest,
                            context: grpc.aio.ServicerContext) -> pb.DeleteProductResponse:
        async with self._rt.db.transaction() as session:
            await service.delete(session, current_caller(), request.id)
        return pb.DeleteProductResponse()
