from __future__ import annotations

import grpc
from paygate.v1 import customers_pb2 as pb
from paygate.v1 import customers_pb2_grpc

from server.cards import saved
from server.context import current_caller, optional_caller
from server.customers import identity, service
from server.customers.convert import to_proto
from server.errors import Unauthenticated, invalid
from server.paging import page_of
from server.payment_intents.models import PaymentIntent
from server.runtime import Runtime
from server.scoping import find_owned


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
            token, expires_at = await identity.create_ephemeral_token(session, current_caller(), request,
                                                                       now=self._rt.clock.now())
        return pb.CreateEphemeralTokenResponse(token=token, expires_at=expires_at)

    async def ResolveIdentity(self, request: pb.ResolveIdentityRequest,
                              context: grpc.aio.ServicerContext) -> pb.ResolveIdentityResponse:
        async with self._rt.db.transaction() as session:
            return await identity.resolve(session, current_caller(), request, now=self._rt.clock.now())

    async def ListPaymentMethods(self, request: pb.ListPaymentMethodsRequest,
                                 context: grpc.aio.ServicerContext) -> pb.ListPaymentMethodsResponse:
        caller = optional_caller()
        customer_id = request.customer_id.strip()
        public = caller is None
        if caller is None:
            # Hosted checkout: a public key and the client secret of one of this customer's payments.
            if not request.key or not request.client_secret:
                raise Unauthenticated("key and client_secret are required")
            caller = await self._rt.auth.public_key_caller(request.key)
            intent_id = request.client_secret.split("_secret_")[0]
            async with self._rt.db.read() as session:
                intent = await find_owned(session, PaymentIntent, intent_id, caller)
            secrets = self._rt.secrets
            if intent is None or not secrets.matches(intent.id, intent.livemode, request.client_secret):
                raise Unauthenticated("client_secret: no payment with this client secret")
            if not customer_id or intent.customer_id != customer_id:
                # The client secret opens its own customer's cards only.
                raise Unauthenticated("client_secret: not a payment of this customer")
        async with self._rt.db.read() as session:
            if await service.find(session, caller, customer_id) is None:
                raise invalid("customer_id", "no such customer")
            rows = await saved.list_for(session, merchant_id=caller.merchant_id, livemode=caller.livemode,
                                        customer_id=customer_id)
        methods = [saved.to_proto(r) for r in rows]
        for method in methods if public else ():
            # The card's fingerprint identifies it across merchants and customers: for the merchant's deduplication,
            # not for whoever holds a payment's client secret. The page shows brand, last4 and expiry.
            method.ClearField("fingerprint")
        return pb.ListPaymentMethodsResponse(payment_methods=methods)
