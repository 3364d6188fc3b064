from __future__ import annotations

from collections.abc import Mapping

import grpc
from paygate.v1 import checkout_pb2 as pb
from paygate.v1 import checkout_pb2_grpc

from server.cards import outcome
from server.checkout import service
from server.checkout.code_delivery import Sender, senders
from server.context import optional_caller
from server.customers.identity import SendCaps
from server.errors import Unavailable
from server.payment_intents.env import Env
from server.runtime import Runtime


class CheckoutServicer(checkout_pb2_grpc.CheckoutServiceServicer):
    def __init__(self, rt: Runtime, by_channel: Mapping[str, Sender] | None = None) -> None:
        self._rt = rt
        self._env: Env = rt  # the part of the runtime payments read
        self._senders = by_channel if by_channel is not None else senders(rt.settings, rt.clock)
        self._caps = SendCaps(per_ip=rt.settings.code_sends_per_ip_per_hour,
                              per_link=rt.settings.code_sends_per_link_per_hour)

    async def GetCheckoutLink(self, request: pb.GetCheckoutLinkRequest,
                              context: grpc.aio.ServicerContext) -> pb.GetCheckoutLinkResponse:
        await self._rt.health.answering()  # the link lists its payable assets: probed outside the read
        async with self._rt.db.read() as session:
            link = await service.checkout_link(session, self._rt.auth, self._env, request.payment_link_id,
                                               request.key)
        return pb.GetCheckoutLinkResponse(link=link)

    async def SendVerificationCode(self, request: pb.SendVerificationCodeRequest,
                                   context: grpc.aio.ServicerContext) -> pb.SendVerificationCodeResponse:
        async with self._rt.db.transaction() as session:
            saved = await service.save_code(session, self._rt.auth, self._senders, request,
                                            now=self._rt.clock.now(), caps=self._caps)
        # Mailed with no transaction open (DESIGN §16): a slow mail server holds no lock and no connection.
        try:
            await self._senders[saved.channel].send(saved.message)
        except Unavailable:
            async with self._rt.db.transaction() as session:
                await service.forget_code(session, saved.code_id)
            raise
        return saved.response

    async def StartCheckout(self, request: pb.StartCheckoutRequest,
                            context: grpc.aio.ServicerContext) -> pb.StartCheckoutResponse:
        async with self._rt.db.transaction() as session:
            started, replaced = await service.start(session, self._rt.auth, self._env, request,
                                                    now=self._rt.clock.now())
        if replaced is not None and outcome.card_pending(replaced):  # as after the cancel call
            await outcome.cancel_pending(self._rt.db, self._env, self._rt.cards, replaced.intent.id)
        return started

    async def GetCheckoutSession(self, request: pb.GetCheckoutSessionRequest,
                                 context: grpc.aio.ServicerContext) -> pb.GetCheckoutSessionResponse:
        async with self._rt.db.read() as session:
            return await service.session_info(session, self._env, optional_caller(), request)
