"""Cards' part of the composition root: the pass that records card payments no charge records (server/cards/
recovery.py `sweep`: a commit lost after provider_a charged the card, for a merchant without a webhook)."""

from __future__ import annotations

from server.cards import recovery
from server.runtime import Runtime


async def recover_card_payments(rt: Runtime) -> None:
    await recovery.sweep(rt.db, rt, rt.cards, now=rt.clock.now())


def register(rt: Runtime) -> None:
    rt.add_job("recover_card_payments", recover_card_payments, recovery.SWEEP_SECONDS)
