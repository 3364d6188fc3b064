"""Refunds' part of the composition root: the job that signs, sends and follows refund transactions, and the one
that asks the card provider again about card refunds it did not answer."""

from __future__ import annotations

from collections.abc import Callable

from server.cards import refunds as card_refunds
from server.refunds import payout_job
from server.refunds.servicer import RefundServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.RefundService": RefundServicer,
}


async def retry_card_refunds(rt: Runtime) -> None:
    await card_refunds.retry_pending(rt.db, rt, rt.cards, now=rt.clock.now())


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
    rt.add_job("send_refunds", payout_job.RefundJob().run, payout_job.INTERVAL_SECONDS)
    rt.add_job("retry_card_refunds", retry_card_refunds, payout_job.INTERVAL_SECONDS)
