"""The renewal's card seam (`collect.CardCharger`) on the cards package: the invoice's own intent paid with the
subscription's saved card, off-session, through `server.cards.payments.charge_saved_card` (DESIGN §8, §9).

The intent is locked and loaded here, in the caller's transaction; the charge, its outcome on the intent and the
intent's events (its Success reaching the invoice through the outbox, lifecycle.on_event) commit together. What
comes back only tells the renewal whether this attempt paid, and why not.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards.accounts import Cards
from server.cards.payments import charge_saved_card
from server.errors import DomainError, Unavailable
from server.payment_intents import settle
from server.payment_intents.aggregate import load_one
from server.payment_intents.env import Env
from server.payment_intents.states import ChargeStatus
from server.payment_intents.states import Status as IntentStatus
from server.subscriptions.collect import ACTION_REQUIRED, PROCESSING, CardResult


@dataclass(frozen=True)
class ProviderCards:
    """`CardCharger` over the cards package: what the composition gives the renewal."""

    env: Env
    cards: Cards

    async def charge_saved_card(self, session: AsyncSession, intent_id: str, payment_method_id: str,
                                idempotency_key: str) -> CardResult:
        intent = await settle.lock(session, intent_id)
        if intent is None:
            return CardResult(False, "missing_intent", "the invoice's payment intent is gone")
        if intent.status == IntentStatus.SUCCESS:
            return CardResult(True)  # paid already (a replayed attempt, or the payer paid the link)
        loaded = await load_one(session, intent)
        try:
            loaded = await charge_saved_card(session, self.env, self.cards, loaded, payment_method_id,
                                             idempotency_key)
        except Unavailable:
            raise  # the provider did not answer: the attempt's lease brings it back, under the same key
        except DomainError as e:
            # No card, no keys, an intent that cannot be paid: this attempt fails like a decline would.
            return CardResult(False, e.reason or "card_unusable", str(e))
        charge = next((c for c in loaded.charges if c.idempotency_key == idempotency_key), None)
        if loaded.intent.status == IntentStatus.SUCCESS or (charge is not None
                                                            and charge.status == ChargeStatus.SUCCESS):
            return CardResult(True)
        if charge is None:
            return CardResult(False, "card_unusable", "no charge was made")
        if charge.status == ChargeStatus.FAILED:
            return CardResult(False, charge.failure_code or "card_declined", charge.failure_message)
        if charge.provider_status == "requires_action":
            return CardResult(False, ACTION_REQUIRED, "the card asks the payer to authenticate (3-D Secure)")
        return CardResult(False, PROCESSING, "the card payment is still processing")
