"""Paying by card (`payment_method_type: "cards"`, DESIGN §9): the payment method handler
(server/payment_intents/methods.py `PaymentMethod`) over this package.

An attempt is a charge at the merchant's card provider (payments.py `open_card`); what it paid is what the provider
reported (`amount_captured`), never chain transfers; refunds go back through the provider (refunds.py). The hosted
page offers it to a merchant with a provider's keys in the mode; an attempt the payer submitted a card to holds the
purchase's stock until it is decided; a subscription it started renews off-session on the card it saved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields
from server.cards import payments, saved
from server.cards.accounts import Cards, takes_cards
from server.cards.models import SavedPaymentMethod
from server.clock import now_of
from server.errors import invalid
from server.payment_intents import attempts
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.methods import RefundRoute
from server.payment_intents.models import CARDS, Charge, PaymentIntent
from server.payment_intents.states import ChargeStatus
from server.rails.card import UNSUBMITTED

if TYPE_CHECKING:
    from server.cards.payments import PayNow


class CardMethod:
    name = CARDS
    options_field = "fiat"
    order_label = "Cards"
    counts_transfers = False
    refund_route = RefundRoute.PROVIDER

    async def open_attempt(self, session: AsyncSession, env: Env, loaded: Loaded,
                           options: pb.PaymentMethodOptionsInput, cards: Cards | None) -> Loaded | PayNow:
        if cards is None:
            # A choice the caller can change, not a failure of ours: 400, never 5xx.
            raise invalid("payment_method_type", "card payments are not available here; pay with crypto")
        return await payments.open_card(session, env, cards, loaded, options.fiat)

    async def withdraw_open(self, session: AsyncSession, env: Env, loaded: Loaded, cards: Cards | None) -> None:
        if cards is None:
            return
        await payments.withdraw_open(session, env, cards, loaded)
        attempts.check_open(loaded, now_of(session))  # a card payment that succeeded meanwhile paid the intent

    def answer_charge(self, env: Env, charge: Charge, status: str, out: pb.Charge) -> None:
        out.payment_method_options.SetInParent()  # shown, and empty: what to pay with is the payer's page's
        # What the payer's page needs to confirm with provider_a's client library (DESIGN §9); never a secret key.
        json_fields.fill(out.provider_a_payload, {"client_secret": charge.provider_client_secret,
                                              "public_key": charge.provider_public_key,
                                              "status": charge.provider_status})
        out.failure_code, out.failure_message = charge.failure_code, charge.failure_message

    def answer_intent(self, env: Env, latest: Charge, out: pb.PaymentIntent) -> None:
        """Nothing: the card attempt's part is its charge's `provider_a_payload`."""

    def holding(self) -> sa.ColumnElement[bool] | None:
        """A card payment the payer submitted a card to, not decided yet (3-D Secure on the page, or processing).
        `provider_status` "": its provider payment is not made yet, so nothing was submitted to it either."""
        return sa.and_(col(Charge.payment_method_type) == self.name, col(Charge.status) == ChargeStatus.PENDING,
                       col(Charge.provider_status).not_in(sorted({*UNSUBMITTED, ""})))

    async def offered(self, session: AsyncSession, merchant_id: str, livemode: bool) -> bool:
        """When the merchant has a card provider's keys for the mode."""
        return await takes_cards(session, merchant_id, livemode)

    async def renews_with(self, session: AsyncSession, intent: PaymentIntent) -> SavedPaymentMethod | None:
        """The card the payer saved with the payment (the method that paid is the one renewals charge, DESIGN §8);
        None when they did not save it: the renewals are then e-mailed invoices, as for crypto."""
        return await saved.card_that_paid(session, intent.id)


CARD_METHOD = CardMethod()
