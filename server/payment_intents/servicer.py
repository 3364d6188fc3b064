from __future__ import annotations

import grpc
from paygate.v1 import payment_intents_pb2 as pb
from paygate.v1 import payment_intents_pb2_grpc

from server import clock
from server.paging import page_of
from server.payment_intents import checkout, service
from server.payment_intents.convert import to_proto
from server.payment_intents.env import Env, configure
from server.request_string import merged
from server.rpc.context import current_caller, optional_caller
from server.runtime import Runtime


class PaymentIntentServicer(payment_intents_pb2_grpc.PaymentIntentServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._env = Env.build(rt.settings, rt.catalogue)
        configure(self._env)  # the chain listener of this process uses the same configuration

    async def CreatePaymentIntent(self, request: pb.CreatePaymentIntentRequest,
                                  context: grpc.aio.ServicerContext) -> pb.CreatePaymentIntentResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.create(session, self._env, current_caller(), request)
        return pb.CreatePaymentIntentResponse(payment_intent=to_proto(self._env, loaded))

    async def ListPaymentIntents(self, request: pb.ListPaymentIntentsRequest,
                                 context: grpc.aio.ServicerContext) -> pb.ListPaymentIntentsResponse:
        page = page_of(request)
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, request)
        now = clock.now()
        return pb.ListPaymentIntentsResponse(payment_intents=[to_proto(self._env, r, now) for r in rows],
                                             total=total, page=page.page, page_size=page.size)

    async def GetPaymentIntent(self, request: pb.GetPaymentIntentRequest,
                               context: grpc.aio.ServicerContext) -> pb.GetPaymentIntentResponse:
        service.check_expand(list(request.expand))
        async with self._rt.db.read() as session:
            loaded = await service.get(session, current_caller(), request.id)
        return pb.GetPaymentIntentResponse(payment_intent=to_proto(self._env, loaded))

    async def UpdatePaymentIntent(self, request: pb.UpdatePaymentIntentRequest,
                                  context: grpc.aio.ServicerContext) -> pb.UpdatePaymentIntentResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.update(session, self._env, current_caller(), request)
        # The spec's shape: the intent as a one-entry list.
        return pb.UpdatePaymentIntentResponse(payment_intents=[to_proto(self._env, loaded)], total=1, page=0,
                                              page_size=1)

    async def CancelPaymentIntent(self, request: pb.CancelPaymentIntentRequest,
                                  context: grpc.aio.ServicerContext) -> pb.CancelPaymentIntentResponse:
        async with self._rt.db.transaction() as session:
            await service.cancel(session, self._env, current_caller(), request)
        return pb.CancelPaymentIntentResponse()

    async def GetCheckoutPaymentIntent(self, request: pb.GetCheckoutPaymentIntentRequest,
                                       context: grpc.aio.ServicerContext) -> pb.GetCheckoutPaymentIntentResponse:
        fields = merged(request)
        caller, trusted = await checkout.checkout_caller(self._rt.auth, optional_caller(), fields.key)
        async with self._rt.db.read() as session:
            loaded = await checkout.open_intent(session, self._env, caller, trusted, fields.id, fields.client_secret)
        now = clock.now()
        checkout.check_viewable(loaded, now)
        return pb.GetCheckoutPaymentIntentResponse(payment_intent=checkout.answer(self._env, loaded, trusted, now))

    async def UpdateCheckoutPaymentIntent(self, request: pb.UpdateCheckoutPaymentIntentRequest,
                                          context: grpc.aio.ServicerContext
                                          ) -> pb.UpdateCheckoutPaymentIntentResponse:
        fields = merged(request)
        caller, trusted = await checkout.checkout_caller(self._rt.auth, optional_caller(), fields.key)
        async with self._rt.db.transaction() as session:
            loaded = await checkout.open_intent(session, self._env, caller, trusted, fields.id, fields.client_secret,
                                                for_update=True)
            loaded = await checkout.choose(session, self._env, loaded, fields)
        return pb.UpdateCheckoutPaymentIntentResponse(payment_intent=checkout.answer(self._env, loaded, trusted))
