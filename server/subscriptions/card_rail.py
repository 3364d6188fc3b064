"""The renewal's card seam (`collect.CardCharger`) on the cards package: the invoice's own intent paid with the
subscription's saved card, off-session, through `server.cards.payments.charge_saved_card` (DESIGN §8, §9).

Save before calling out (DESIGN §16, server/cards/calls.py): a first unit of work takes the caller's locks, locks
the intent and commits the charge marked out at the provider; the card is charged with no transaction open; a
second unit takes the same locks and applies the answer, and the caller's `outcome` records the result with it. An
attempt that needs no call (paid already, charged under this key before, or refused here) records its result in the
first. What comes back only tells the renewal whether this attempt paid, and why not.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards import calls
from server.cards.accounts import Cards
from server.cards.payments import PayNow, charge_saved_card, finish
from server.db import Database
from server.errors import DomainError, Unavailable
from server.payment_intents import settle
from server.payment_intents.aggregate import Loaded, load_one
from server.payment_intents.env import Env
from server.payment_intents.states import ChargeStatus
from server.payment_intents.states import Status as IntentStatus
from server.rails.card import ProviderPaymentStatus
from server.subscriptions.collect import ACTION_REQUIRED, PROCESSING, CardResult, Locked, Outcome


@dataclass(frozen=True)
class ProviderCards:
    """`CardCharger` over the cards package: what the composition gives the renewal."""

    env: Env
    cards: Cards

    async def charge_saved_card(self, db: Database, intent_id: str, payment_method_id: str, idempotency_key: str, *,
                                lock: Locked, outcome: Outcome) -> None:
        async def start(session: AsyncSession, cards: Cards) -> PayNow | None:
            await lock(session)
            step = await self._start(session, cards, intent_id, payment_method_id, idempotency_key)
            if isinstance(step, CardResult):
                await outcome(session, step)
                return None
            return step

        out = await calls.unit(db, self.cards, start)
        if out is None:
            return
        answer = await calls.call(db, self.cards, out)

        async def done(session: AsyncSession, cards: Cards) -> None:
            await lock(session)
            loaded = await finish(session, self.env, cards, out, answer)
            await outcome(session, _result(loaded, idempotency_key))

        await calls.unit(db, self.cards, done)

    async def _start(self, session: AsyncSession, cards: Cards, intent_id: str, payment_method_id: str,
                     idempotency_key: str) -> CardResult | PayNow:
        intent = await settle.lock(session, intent_id)
        if intent is None:
            return CardResult(False, "missing_intent", "the invoice's payment intent is gone")
        if intent.status == IntentStatus.SUCCESS:
            return CardResult(True)  # paid already (a replayed attempt, or the payer paid the link)
        loaded = await load_one(session, intent)
        try:
            step = await charge_saved_card(session, self.env, cards, loaded, payment_method_id, idempotency_key)
        except Unavailable:
            raise  # the provider did not answer: the attempt's lease brings it back, under the same key
        except DomainError as e:
            # No card, no keys, an intent that cannot be paid: this attempt fails like a decline would.
            return CardResult(False, e.reason or "card_unusable", str(e))
        return step if isinstance(step, PayNow) else _result(step, idempotency_key)


def _result(loaded: Loaded, idempotency_key: str) -> CardResult:
    charge = next((c for c in loaded.charges if c.idempotency_key == idempotency_key), None)
    if loaded.intent.status == IntentStatus.SUCCESS or (charge is not None and charge.status == ChargeStatus.SUCCESS):
        return CardResult(True)
    if charge is None:
        return CardResult(False, "card_unusable", "no charge was made")
    if charge.status == ChargeStatus.FAILED:
        return CardResult(False, charge.failure_code or "card_declined", charge.failure_message)
    if charge.provider_status == ProviderPaymentStatus.REQUIRES_ACTION:
        return CardResult(False, ACTION_REQUIRED, "the card asks the payer to authenticate (3-D Secure)")
    return CardResult(False, PROCESSING, "the card payment is still processing")
