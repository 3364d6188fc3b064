from __future__ import annotations

import grpc
from paygate.v1 import payouts_pb2 as pb
from paygate.v1 import payouts_pb2_grpc

from server.context import current_caller
from server.paging import page_of
from server.runtime import Runtime
from server.treasury.approvals import service as approvals
from server.treasury.payouts import service as payouts


class PayoutServicer(payouts_pb2_grpc.PayoutServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def _one(self, row: payouts.PayoutRow) -> pb.Payout:
        async with self._rt.db.read() as session:
            txs = await payouts.transactions(session, [row.id])
            wallets = await payouts.wallets(session, self._rt, [row])
        return payouts.to_proto(self._rt.catalogue, row, txs.get(row.id, []), wallets.get(row.merchant_address_id),
                                fee_from_amount=payouts.fee_from_amount(self._rt, row.asset_id))

    async def PreviewPayout(self, request: pb.PreviewPayoutRequest,
                            context: grpc.aio.ServicerContext) -> pb.PreviewPayoutResponse:
        return await payouts.preview(self._rt, current_caller(), request)

    async def CreatePayout(self, request: pb.CreatePayoutRequest,
                           context: grpc.aio.ServicerContext) -> pb.CreatePayoutResponse:
        row = await payouts.create(self._rt, current_caller(), request)
        return pb.CreatePayoutResponse(payout=await self._one(row))

    async def GetPayout(self, request: pb.GetPayoutRequest, context: grpc.aio.ServicerContext) -> pb.GetPayoutResponse:
        async with self._rt.db.read() as session:
            row = await payouts.get(session, current_caller(), request.id)
        return pb.GetPayoutResponse(payout=await self._one(row))

    async def ListPayouts(self, request: pb.ListPayoutsRequest,
                          context: grpc.aio.ServicerContext) -> pb.ListPayoutsResponse:
        page = page_of(request)
        async with self._rt.db.read() as session:
            rows, total = await payouts.list_page(session, current_caller(), page, request.status)
            txs = await payouts.transactions(session, [r.id for r in rows])
            wallets = await payouts.wallets(session, self._rt, rows)
        return pb.ListPayoutsResponse(
            payouts=[payouts.to_proto(self._rt.catalogue, r, txs.get(r.id, []), wallets.get(r.merchant_address_id),
                                      fee_from_amount=payouts.fee_from_amount(self._rt, r.asset_id))
                     for r in rows], total=total, page=page.page, page_size=page.size)

    async def CancelPayout(self, request: pb.CancelPayoutRequest,
                           context: grpc.aio.ServicerContext) -> pb.CancelPayoutResponse:
        row = await payouts.cancel(self._rt, current_caller(), request.id)
        return pb.CancelPayoutResponse(payout=await self._one(row))

    # Four eyes (DESIGN §15): server/treasury/approvals/service.py.

    async def GetApprovalDetail(self, request: pb.GetApprovalDetailRequest,
                                context: grpc.aio.ServicerContext) -> pb.GetApprovalDetailResponse:
        return pb.GetApprovalDetailResponse(
            detail=await approvals.detail(self._rt, current_caller(), request.resource_id, request.instance_id,
                                          request.resource_type))

    async def ListPendingApprovals(self, request: pb.ListPendingApprovalsRequest,
                                   context: grpc.aio.ServicerContext) -> pb.ListPendingApprovalsResponse:
        return pb.ListPendingApprovalsResponse(details=await approvals.pending(self._rt, current_caller()))

    async def ApprovePayout(self, request: pb.ApprovePayoutRequest,
                            context: grpc.aio.ServicerContext) -> pb.ApprovePayoutResponse:
        return pb.ApprovePayoutResponse(
            detail=await approvals.decide(self._rt, current_caller(), request.id, request.comment, approve=True))

    async def RejectPayout(self, request: pb.RejectPayoutRequest,
                           context: grpc.aio.ServicerContext) -> pb.RejectPayoutResponse:
        return pb.RejectPayoutResponse(
            detail=await approvals.decide(self._rt, current_caller(), request.id, request.comment, approve=False))
