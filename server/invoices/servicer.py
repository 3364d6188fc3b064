from __future__ import annotations

import grpc
from paygate.v1 import invoice_service_pb2 as pb
from paygate.v1 import invoice_service_pb2_grpc

from server.cards import outcome
from server.context import current_caller
from server.invoices import service
from server.payment_intents.aggregate import load_one
from server.payment_intents.convert import to_proto as intent_proto
from server.runtime import Runtime
from server.subscriptions import billing, renewal
from server.subscriptions.collect import Collector
from server.subscriptions.servicer import collector_of


class InvoiceServicer(invoice_service_pb2_grpc.InvoiceServiceServicer):
    def __init__(self, rt: Runtime, collector: Collector | None = None) -> None:
        self._rt = rt
        self._collector = collector or collector_of(rt)

    async def ListInvoices(self, request: pb.ListInvoicesRequest,
                           context: grpc.aio.ServicerContext) -> pb.ListInvoicesResponse:
        async with self._rt.db.read() as session:
            rows, total, offset, limit = await service.list_page(session, current_caller(), request)
            data = [await billing.invoice_view(session, r) for r in rows]
        return pb.ListInvoicesResponse(offset=offset, limit=limit, total=total, data=data)

    async def GetInvoice(self, request: pb.GetInvoiceRequest, context: grpc.aio.ServicerContext
                         ) -> pb.GetInvoiceResponse:
        async with self._rt.db.read() as session:
            inv = await service.get(session, current_caller(), request.id)
            return pb.GetInvoiceResponse(invoice=await billing.invoice_view(session, inv))

    async def GetInvoicePaymentIntent(self, request: pb.GetInvoicePaymentIntentRequest,
                                      context: grpc.aio.ServicerContext) -> pb.GetInvoicePaymentIntentResponse:
        async with self._rt.db.read() as session:
            intent = await service.payment_intent_of(session, current_caller(), request.id)
            loaded = await load_one(session, intent)
        return pb.GetInvoicePaymentIntentResponse(payment_intent=intent_proto(self._collector.env, loaded))

    async def SendInvoice(self, request: pb.SendInvoiceRequest,
                          context: grpc.aio.ServicerContext) -> pb.SendInvoiceResponse:
        async with self._rt.db.transaction() as session:
            inv, callouts = await service.send(session, self._collector, current_caller(), request.id)
        await renewal.run_callouts(self._rt.db, self._collector, callouts)
        async with self._rt.db.read() as session:
            inv = await service.get(session, current_caller(), request.id)
            return pb.SendInvoiceResponse(invoice=await billing.invoice_view(session, inv))

    async def VoidInvoice(self, request: pb.VoidInvoiceRequest,
                          context: grpc.aio.ServicerContext) -> pb.VoidInvoiceResponse:
        async with self._rt.db.transaction() as session:
            inv = await service.void(session, self._collector.env, current_caller(), request.id)
            answer = pb.VoidInvoiceResponse(invoice=await billing.invoice_view(session, inv))
        if inv.payment_intent_id:
            # After the commit, like CancelPaymentIntent: a provider call must not hold the rows.
            await outcome.cancel_pending(self._rt.db, self._collector.env, self._rt.cards, inv.payment_intent_id)
        return answer

    async def CreateInvoicePaymentIntent(self, request: pb.CreateInvoicePaymentIntentRequest,
                                         context: grpc.aio.ServicerContext
                                         ) -> pb.CreateInvoicePaymentIntentResponse:
        async with self._rt.db.transaction() as session:
            intent = await service.create_intent(session, self._collector, current_caller(), request)
            loaded = await load_one(session, intent)
        return pb.CreateInvoicePaymentIntentResponse(payment_intent=intent_proto(self._collector.env, loaded))
