"""Cards' part of the composition root: the pass that records card payments no charge records (server/cards/
recovery.py `sweep`: a commit lost after provider_a charged the card, for a merchant without a webhook)."""

from __future__ import annotations

from collections.abc import Callable

from server.cards import recovery
from server.cards.servicer import ProviderWebhookServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.ProviderWebhookService": ProviderWebhookServicer,
}


async def recover_card_payments(rt: Runtime) -> None:
    await recovery.sweep(rt.db, rt, rt.cards, now=rt.clock.now())


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
    rt.add_job("recover_card_payments", recover_card_payments, recovery.SWEEP_SECONDS)
