from __future__ import annotations

from pathlib import Path

import grpc
from paygate.v1 import subscriptions_pb2 as pb
from paygate.v1 import subscriptions_pb2_grpc

from server.cards import outcome
from server.context import current_caller
from server.mail import Mailer, mailer_for
from server.runtime import Runtime
from server.subscriptions import renewal, service
from server.subscriptions.card_rail import ProviderCards
from server.subscriptions.collect import CardCharger, Collector
from server.subscriptions.convert import to_proto


def mailer_of(rt: Runtime) -> Mailer:
    """SMTP at `smtp_url` (PAYGATE_SMTP_URL), else .eml files under `mail_dir` (var/mail/)."""
    settings = rt.settings
    return mailer_for(rt.clock, settings.smtp_url, Path(settings.mail_dir), settings.mail_from)


def collector_of(rt: Runtime, cards: CardCharger | None = None) -> Collector:
    """What renewals collect with in this process: its e-mail, and its cards (the card rails through the cards
    package, unless a test gives another)."""
    return Collector(env=rt, mailer=mailer_of(rt), cards=cards or ProviderCards(env=rt, cards=rt.cards))


class SubscriptionServicer(subscriptions_pb2_grpc.SubscriptionServiceServicer):
    def __init__(self, rt: Runtime, collector: Collector | None = None) -> None:
        self._rt = rt
        self._collector = collector or collector_of(rt)

    async def _cancel_card_payments(self, intent_ids: list[str]) -> None:
        """After the commit, like CancelPaymentIntent: the pending card charges of the intents canceled with their
        invoices are canceled at their provider (a provider call must not hold the rows)."""
        for intent_id in intent_ids:
            await outcome.cancel_pending(self._rt.db, self._collector.env, self._rt.cards, intent_id)

    async def ListSubscriptions(self, request: pb.ListSubscriptionsRequest,
                                context: grpc.aio.ServicerContext) -> pb.ListSubscriptionsResponse:
        async with self._rt.db.read() as session:
            rows, total, offset, limit = await service.list_page(session, current_caller(), request)
            data = [to_proto(r) for r in rows]
        return pb.ListSubscriptionsResponse(offset=offset, limit=limit, total=total, data=data)

    async def GetSubscription(self, request: pb.GetSubscriptionRequest,
                              context: grpc.aio.ServicerContext) -> pb.GetSubscriptionResponse:
        async with self._rt.db.read() as session:
            loaded = await service.get(session, current_caller(), request.id)
        return pb.GetSubscriptionResponse(subscription=to_proto(loaded))

    async def CancelSubscription(self, request: pb.CancelSubscriptionRequest,
                                 context: grpc.aio.ServicerContext) -> pb.CancelSubscriptionResponse:
        async with self._rt.db.transaction() as session:
            loaded, canceled = await service.cancel(session, self._collector.env, current_caller(), request)
        await self._cancel_card_payments(canceled)
        return pb.CancelSubscriptionResponse(subscription=to_proto(loaded))

    async def RevokeSubscriptionCancel(self, request: pb.RevokeSubscriptionCancelRequest,
                                       context: grpc.aio.ServicerContext) -> pb.RevokeSubscriptionCancelResponse:
        async with self._rt.db.transaction() as session:
            loaded = await service.revoke_cancel(session, current_caller(), request)
        return pb.RevokeSubscriptionCancelResponse(subscription=to_proto(loaded))

    async def PauseSubscription(self, request: pb.PauseSubscriptionRequest,
                                context: grpc.aio.ServicerContext) -> pb.PauseSubscriptionResponse:
        async with self._rt.db.transaction() as session:
            loaded, canceled = await service.pause(session, self._collector.env, current_caller(), request)
        await self._cancel_card_payments(canceled)
        return pb.PauseSubscriptionResponse(subscription=to_proto(loaded))

    async def ResumeSubscription(self, request: pb.ResumeSubscriptionRequest,
                                 context: grpc.aio.ServicerContext) -> pb.ResumeSubscriptionResponse:
        async with self._rt.db.transaction() as session:
            loaded, callouts = await service.resume(session, self._collector, current_caller(), request)
            answer = to_proto(loaded)
        await renewal.run_callouts(self._rt.db, self._collector, callouts)
        return pb.ResumeSubscriptionResponse(subscription=answer)

    async def ChangeSubscriptionPlan(self, request: pb.ChangeSubscriptionPlanRequest,
                                     context: grpc.aio.ServicerContext) -> pb.ChangeSubscriptionPlanResponse:
        async with self._rt.db.transaction() as session:
            answer, callouts = await service.change_plan(session, self._collector, current_caller(), request)
        await renewal.run_callouts(self._rt.db, self._collector, callouts)
        return pb.ChangeSubscriptionPlanResponse(subscription=answer)

    async def PreviewSubscriptionChange(self, request: pb.PreviewSubscriptionChangeRequest,
                                        context: grpc.aio.ServicerContext) -> pb.PreviewSubscriptionChangeResponse:
        same = pb.ChangeSubscriptionPlanRequest.FromString(request.SerializeToString())
        async with self._rt.db.read() as session:
            answer = await service.preview(session, current_caller(), same)
        return pb.PreviewSubscriptionChangeResponse(preview=answer)

    async def AdvanceSubscriptionTestClock(self, request: pb.AdvanceSubscriptionTestClockRequest,
                                           context: grpc.aio.ServicerContext
                                           ) -> pb.AdvanceSubscriptionTestClockResponse:
        caller = current_caller()
        async with self._rt.db.transaction() as session:
            sub = await service.check_clock(session, caller, request)
        await renewal.advance_clock(self._rt.db, self._collector, sub.id, request.to)
        async with self._rt.db.read() as session:
            loaded = await service.get(session, caller, request.id)
        return pb.AdvanceSubscriptionTestClockResponse(subscription=to_proto(loaded))
