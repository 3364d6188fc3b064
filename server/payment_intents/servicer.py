from __future__ import annotations

import grpc
from paygate.v1 import payment_intents_pb2 as pb
from paygate.v1 import payment_intents_pb2_grpc
from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards import calls, outcome
from server.cards.accounts import Cards
from server.cards.payments import PayNow
from server.context import current_caller, optional_caller
from server.paging import page_of
from server.payment_intents import checkout, service
from server.payment_intents.aggregate import Loaded
from server.payment_intents.convert import to_proto
from server.payment_intents.env import Env
from server.request_string import merged
from server.runtime import Runtime
from server.subscriptions import expand


class PaymentIntentServicer(payment_intents_pb2_grpc.PaymentIntentServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._env: Env = rt  # the part of the runtime payments read
        self._cards = rt.cards

    async def _read_through(self, loaded: Loaded) -> bool:
        """A pending card charge is asked about at its provider (rate-limited per charge): a lost webhook loses
        nothing. True when the intent may have changed."""
        if not outcome.card_pending(loaded):
            return False
        return await outcome.refresh(self._rt.db, self._env, self._cards, loaded.intent.id)

    async def CreatePaymentIntent(self, request: pb.CreatePaymentIntentRequest,
                                  context: grpc.aio.ServicerContext) -> pb.CreatePaymentIntentResponse:
        await self._rt.health.answering()  # a permanent deposit's asset must be payable: probed outside the transaction
        async with self._rt.db.transaction() as session:
            loaded = await service.create(session, self._env, current_caller(), request)
        return pb.CreatePaymentIntentResponse(payment_intent=to_proto(self._env, loaded))

    async def ListPaymentIntents(self, request: pb.ListPaymentIntentsRequest,
                                 context: grpc.aio.ServicerContext) -> pb.ListPaymentIntentsResponse:
        page = page_of(request)
        now = self._rt.clock.now()
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, request)
            intents = [to_proto(self._env, r, now) for r in rows]
            for loaded, out in zip(rows, intents, strict=True):
                await expand.fill(session, loaded, out, request.expand)
        return pb.ListPaymentIntentsResponse(payment_intents=intents, total=total, page=page.page,
                                             page_size=page.size)

    async def GetPaymentIntent(self, request: pb.GetPaymentIntentRequest,
                               context: grpc.aio.ServicerContext) -> pb.GetPaymentIntentResponse:
        service.check_expand(list(request.expand))
        async with self._rt.db.read() as session:
            loaded = await service.get(session, current_caller(), request.id)
        if await self._read_through(loaded):
            async with self._rt.db.read() as session:
                loaded = await service.get(session, current_caller(), request.id)
        async with self._rt.db.read() as session:
            out = to_proto(self._env, loaded)
            await expand.fill(session, loaded, out, request.expand)
        return pb.GetPaymentIntentResponse(payment_intent=out)

    async def UpdatePaymentIntent(self, request: pb.UpdatePaymentIntentRequest,
                                  context: grpc.aio.ServicerContext) -> pb.UpdatePaymentIntentResponse:
        await self._rt.health.answering()  # an attempt opens only on a payable asset: probed outside the transaction
        caller = current_caller()
        loaded = await calls.choose(self._rt.db, self._env, self._cards,
                                    lambda session, cards: service.update(session, self._env, caller, request, cards))
        # The spec's shape, the intent as a one-entry list, and the intent's own fields beside it (DESIGN §17).
        out = to_proto(self._env, loaded)
        return pb.UpdatePaymentIntentResponse(payment_intents=[out], total=1, page=0, page_size=1, payment_intent=out)

    async def CancelPaymentIntent(self, request: pb.CancelPaymentIntentRequest,
                                  context: grpc.aio.ServicerContext) -> pb.CancelPaymentIntentResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.cancel(session, self._env, current_caller(), request)
        if outcome.card_pending(loaded):
            await outcome.cancel_pending(self._rt.db, self._env, self._cards, loaded.intent.id)
            async with self._rt.db.read() as session:  # a card payment may have been applied meanwhile
                loaded = await service.get(session, current_caller(), request.id)
        # The spec shows `data` empty; the canceled intent's fields are added to it (DESIGN §17).
        return pb.CancelPaymentIntentResponse(payment_intent=to_proto(self._env, loaded))

    async def GetCheckoutPaymentIntent(self, request: pb.GetCheckoutPaymentIntentRequest,
                                       context: grpc.aio.ServicerContext) -> pb.GetCheckoutPaymentIntentResponse:
        fields = merged(request)
        caller, trusted = await checkout.checkout_caller(self._rt.auth, optional_caller(), fields.key)
        async with self._rt.db.read() as session:
            loaded = await checkout.open_intent(session, self._env, caller, trusted, fields.id, fields.client_secret)
        if await self._read_through(loaded):
            async with self._rt.db.read() as session:
                loaded = await checkout.open_intent(session, self._env, caller, trusted, fields.id,
                                                    fields.client_secret)
        now = self._rt.clock.now()
        checkout.check_viewable(loaded, now)
        return pb.GetCheckoutPaymentIntentResponse(payment_intent=checkout.answer(self._env, loaded, trusted, now))

    async def UpdateCheckoutPaymentIntent(self, request: pb.UpdateCheckoutPaymentIntentRequest,
                                          context: grpc.aio.ServicerContext
                                          ) -> pb.UpdateCheckoutPaymentIntentResponse:
        fields = merged(request)
        caller, trusted = await checkout.checkout_caller(self._rt.auth, optional_caller(), fields.key)
        await self._rt.health.answering()  # as in UpdatePaymentIntent

        async def choose(session: AsyncSession, cards: Cards) -> Loaded | PayNow:
            loaded = await checkout.open_intent(session, self._env, caller, trusted, fields.id, fields.client_secret,
                                                for_update=True)
            return await checkout.choose(session, self._env, loaded, fields, cards)

        loaded = await calls.choose(self._rt.db, self._env, self._cards, choose)
        return pb.UpdateCheckoutPaymentIntentResponse(payment_intent=checkout.answer(self._env, loaded, trusted))
