from __future__ import annotations

import grpc
from paygate.v1 import refunds_pb2 as pb
from paygate.v1 import refunds_pb2_grpc

from server.cards import refunds as card_refunds
from server.context import current_caller
from server.paging import page_of
from server.payment_intents.env import Env
from server.refunds import service
from server.refunds.convert import to_proto
from server.runtime import Runtime


class RefundServicer(refunds_pb2_grpc.RefundServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._env: Env = rt  # the part of the runtime payments read
        self._rails = rt.rails
        self._cards = rt.cards

    async def CreateRefund(self, request: pb.CreateRefundRequest,
                           context: grpc.aio.ServicerContext) -> pb.CreateRefundResponse:
        # The service opens its own transactions: the treasury balance is read from the chain between them.
        caller = current_caller()
        by_card = await card_refunds.card_charges_to_refund(self._rt.db, caller, request)
        if by_card is not None:
            # Pending, committed; the provider is asked after this answer (cards/refunds.py).
            refund = await card_refunds.create(self._rt.db, self._env, self._cards, self._rt.tasks, caller, request,
                                               by_card)
        else:
            refund = await service.create(self._rt.db, self._env, self._rails, caller, request)
        return pb.CreateRefundResponse(refunds=[to_proto(self._env.catalogue, refund, [])])

    async def GetRefund(self, request: pb.GetRefundRequest, context: grpc.aio.ServicerContext) -> pb.GetRefundResponse:
        async with self._rt.db.read() as session:
            refund, txs = await service.get(session, current_caller(), request.id)
        return pb.GetRefundResponse(refund=to_proto(self._env.catalogue, refund, txs))

    async def ListRefunds(self, request: pb.ListRefundsRequest,
                          context: grpc.aio.ServicerContext) -> pb.ListRefundsResponse:
        page = page_of(request)
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page, request)
        return pb.ListRefundsResponse(refunds=[to_proto(self._env.catalogue, r, t) for r, t in rows], total=total,
                                      page=page.page, page_size=page.size)
