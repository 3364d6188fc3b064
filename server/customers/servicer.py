from __future__ import annotations

import grpc
from paygate.v1 import customers_pb2 as pb
from paygate.v1 import customers_pb2_grpc

from server.customers import identity, service
from server.customers.convert import to_proto
from server.errors import Unauthenticated, invalid
from server.paging import page_of
from server.rpc.context import current_caller, optional_caller
from server.runtime import Runtime


class CustomerServicer(customers_pb2_grpc.CustomerServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def CreateCustomer(self, request: pb.CreateCustomerRequest,
                             context: grpc.aio.ServicerContext) -> pb.CreateCustomerResponse:
        async with self._rt.db.transaction() as session:
            row = await service.create(session, current_caller(), request)
        return pb.CreateCustomerResponse(customer=to_proto(row))

    async def ListCustomers(self, request: pb.ListCustomersRequest,
                            context: grpc.aio.ServicerContext) -> pb.ListCustomersResponse:
        page = page_of(request)
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, request.email)
        return pb.ListCustomersResponse(customers=[to_proto(r) for r in rows], total=total,
                                        page=page.page, page_size=page.size)

    async def GetCustomer(self, request: pb.GetCustomerRequest,
                          context: grpc.aio.ServicerContext) -> pb.GetCustomerResponse:
        async with self._rt.db.read() as session:
            row = await service.get(session, current_caller(), request.id)
        return pb.GetCustomerResponse(customer=to_proto(row))

    async def UpdateCustomer(self, request: pb.UpdateCustomerRequest,
                             context: grpc.aio.ServicerContext) -> pb.UpdateCustomerResponse:
        async with self._rt.db.transaction() as session:
            row = await service.update(session, current_caller(), request)
        return pb.UpdateCustomerResponse(customer=to_proto(row))

    async def DeleteCustomer(self, request: pb.DeleteCustomerRequest,
                             context: grpc.aio.ServicerContext) -> pb.DeleteCustomerResponse:
        async with self._rt.db.transaction() as session:
            await service.delete(session, current_caller(), request.id)
        return pb.DeleteCustomerResponse()

    async def CreateEphemeralToken(self, request: pb.CreateEphemeralTokenRequest,
                                   context: grpc.aio.ServicerContext) -> pb.CreateEphemeralTokenResponse:
        async with self._rt.db.transaction() as session:
            token, expires_at = await identity.create_ephemeral_token(session, current_caller(), request)
        return pb.CreateEphemeralTokenResponse(token=token, expires_at=expires_at)

    async def ResolveIdentity(self, request: pb.ResolveIdentityRequest,
                              context: grpc.aio.ServicerContext) -> pb.ResolveIdentityResponse:
        async with self._rt.db.transaction() as session:
            return await identity.resolve(session, current_caller(), request)

    async def ListPaymentMethods(self, request: pb.ListPaymentMethodsRequest,
                                 context: grpc.aio.ServicerContext) -> pb.ListPaymentMethodsResponse:
        caller = optional_caller()
        if caller is None:
            # Hosted checkout: a public key and the client secret of one of the customer's payments.
            if not request.key or not request.client_secret:
                raise Unauthenticated("key and client_secret are required")
            await self._rt.auth.public_key_caller(request.key)
            # Client secrets belong to payment intents, which this build does not issue yet.
            raise Unauthenticated("client_secret: no payment with this client secret")
        async with self._rt.db.read() as session:
            if await service.find(session, caller, request.customer_id) is None:
                raise invalid("customer_id", "no such customer")
        # Saved methods come from card providers; none is connected yet, so the list is empty.
        return pb.ListPaymentMethodsResponse(payment_methods=[])
