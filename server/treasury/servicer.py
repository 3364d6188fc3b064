from __future__ import annotations

import grpc
from paygate.v1 import treasury_pb2 as pb
from paygate.v1 import treasury_pb2_grpc
from sqlmodel import col, select

from server.context import current_caller
from server.paging import newest_first, page_of
from server.payment_intents.totals import text
from server.runtime import Runtime
from server.scoping import in_scope
from server.treasury.ledger import balance
from server.treasury.sweeps import service as sweeps
from server.treasury.sweeps.models import Sweep, SweepTransaction


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

    async def ListSweeps(self, request: pb.ListSweepsRequest,
                         context: grpc.aio.ServicerContext) -> pb.ListSweepsResponse:
        caller = current_caller()
        page = page_of(request)
        async with self._rt.db.read() as session:
            rows, total = await newest_first(session, Sweep, in_scope(Sweep, caller), page)
            txs: dict[str, list[SweepTransaction]] = {}
            for tx in await session.exec(select(SweepTransaction)
                                         .where(col(SweepTransaction.sweep_id).in_([r.id for r in rows]))
                                         .order_by(col(SweepTransaction.created_at))):
                txs.setdefault(tx.sweep_id, []).append(tx)
        return pb.ListSweepsResponse(sweeps=[self._sweep(r, txs.get(r.id, [])) for r in rows], total=total,
                                     page=page.page, page_size=page.size)

    def _sweep(self, sweep: Sweep, txs: list[SweepTransaction]) -> pb.Sweep:
        native = sweeps.native_of(self._rt.catalogue, sweep.network)
        return pb.Sweep(
            id=sweep.id, object="sweep", network=sweep.network, asset_id=sweep.asset_id,
            source_address=sweep.source_address, destination_address=sweep.destination_address,
            amount=text(sweep.amount), network_fee=text(sweep.network_fee),
            network_fee_asset_id=native.id if native else "", status=sweep.status,
            failure_reason=sweep.failure_reason, tx_hash=sweep.tx_hash, created=sweep.created, updated=sweep.updated,
            transactions=[pb.SweepTransaction(
                id=t.id, type=t.kind, tx_hash=t.tx_hash, from_address=t.source_address,
                to_address=t.destination_address, amount=format(t.amount_base, "f"), asset_id=t.asset_id,
                status=t.status, fee=format(t.fee_wei, "f")) for t in txs])
