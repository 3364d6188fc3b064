from __future__ import annotations

import grpc
from paygate.v1 import treasury_pb2 as pb
from paygate.v1 import treasury_pb2_grpc

from server.payment_intents.totals import text
from server.rpc.context import current_caller
from server.runtime import Runtime
from server.treasury import balance


class TreasuryServicer(treasury_pb2_grpc.TreasuryServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def GetBalance(self, request: pb.GetBalanceRequest,
                         context: grpc.aio.ServicerContext) -> pb.GetBalanceResponse:
        caller = current_caller()
        async with self._rt.db.read() as session:
            found = await balance.of_merchant(session, self._rt.catalogue, self._rt.rates, caller.merchant_id,
                                              caller.livemode)
        f = found.fiat
        return pb.GetBalanceResponse(
            currency=found.currency, available_balance=found.rounded(f.available),
            pending_balance=found.rounded(f.pending), locked_balance=found.rounded(f.locked),
            frozen_balance=found.rounded(f.frozen), total_balance=found.rounded(f.total),
            balance_details=[pb.BalanceDetail(
                currency=asset_id, available_balance=text(a.available), pending_balance=text(a.pending),
                locked_balance=text(a.locked), frozen_balance=text(a.frozen), total_balance=text(a.total))
                for asset_id, a in found.per_asset])
