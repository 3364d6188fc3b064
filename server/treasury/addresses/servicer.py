from __future__ import annotations

import grpc
from paygate.v1 import addresses_pb2 as pb
from paygate.v1 import addresses_pb2_grpc

from server.context import current_caller
from server.paging import page_of
from server.runtime import Runtime
from server.treasury.addresses import service as addresses
from server.treasury.addresses.convert import to_proto


class AddressServicer(addresses_pb2_grpc.AddressServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def CreateAddress(self, request: pb.CreateAddressRequest,
                            context: grpc.aio.ServicerContext) -> pb.CreateAddressResponse:
        async with self._rt.db.transaction() as session:
            row = await addresses.create(session, self._rt.catalogue, self._rt.rails, self._rt.settings,
                                         self._rt.keys, current_caller(), request.network, request.address,
                                         request.alias)
        return pb.CreateAddressResponse(merchant_address=to_proto(self._rt, row))

    async def ListAddresses(self, request: pb.ListAddressesRequest,
                            context: grpc.aio.ServicerContext) -> pb.ListAddressesResponse:
        page = page_of(request, max_size=addresses.MAX_PAGE_SIZE)
        async with self._rt.db.read() as session:
            rows, total = await addresses.list_page(session, current_caller(), page, request.network)
        return pb.ListAddressesResponse(merchant_addresses=[to_proto(self._rt, r) for r in rows], total=total,
                                        page=page.page, page_size=page.size)

    async def GetAddress(self, request: pb.GetAddressRequest,
                         context: grpc.aio.ServicerContext) -> pb.GetAddressResponse:
        async with self._rt.db.read() as session:
            row = await addresses.get(session, current_caller(), request.id)
        return pb.GetAddressResponse(merchant_address=to_proto(self._rt, row))

    async def UpdateAddress(self, request: pb.UpdateAddressRequest,
                            context: grpc.aio.ServicerContext) -> pb.UpdateAddressResponse:
        async with self._rt.db.transaction() as session:
            row = await addresses.update(session, current_caller(), request.id, request.alias)
        return pb.UpdateAddressResponse(merchant_address=to_proto(self._rt, row))

    async def DeleteAddress(self, request: pb.DeleteAddressRequest,
                            context: grpc.aio.ServicerContext) -> pb.DeleteAddressResponse:
        async with self._rt.db.transaction() as session:
            await addresses.delete(session, current_caller(), request.id)
        return pb.DeleteAddressResponse()

    async def VerifyAddress(self, request: pb.VerifyAddressRequest,
                            context: grpc.aio.ServicerContext) -> pb.VerifyAddressResponse:
        async with self._rt.db.transaction() as session:
            row = await addresses.verify(session, self._rt.catalogue, current_caller(), request.id, request.amount,
                                         request.signature)
        return pb.VerifyAddressResponse(merchant_address=to_proto(self._rt, row))
