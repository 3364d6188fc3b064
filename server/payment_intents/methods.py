"""The ways to pay (`payment_method_type` of intents and charges): one handler per method, the only code that tells
them apart (DESIGN §18, "The seam").

    PaymentMethod   what a method answers: how an attempt opens and is withdrawn, whether chain transfers pay its
                    charges, its part of the API's answer, how it is refunded, whether the hosted page offers it,
                    which of its attempts hold a purchase's stock, how a subscription it started renews
    registered()    method name → handler, in the order the API lists them: crypto (crypto_method.py, here) and
                    cards (server/cards/method.py, over the card rails)
    of(name)        the handler of an intent's or a charge's method

Adding a method is a handler and one line of `registered`; nothing else compares `payment_method_type`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Protocol

import sqlalchemy as sa
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.models import CRYPTO, Charge, PaymentIntent

if TYPE_CHECKING:
    from server.cards.accounts import Cards
    from server.cards.models import SavedPaymentMethod
    from server.cards.payments import PayNow


DEFAULT = CRYPTO  # `of`


class RefundRoute(StrEnum):
    """How a method's payments go back."""

    CHAIN = "chain"  # from the merchant's treasury, on chain, in the paid asset (server/refunds/)
    PROVIDER = "provider"  # through the charge's card provider (server/cards/refunds.py)


class PaymentMethod(Protocol):
    name: str  # its `payment_method_type`
    options_field: str  # its field of `payment_method_options` on input, which names it when the type is left out
    order_label: str  # an order's `payment_method`
    # Whether chain transfers to its charges' deposit addresses pay them (settle, the chain listener and the ledger
    # count them); otherwise a charge's own `amount_captured` is what it paid, as its provider reported it.
    counts_transfers: bool
    refund_route: RefundRoute

    async def open_attempt(self, session: AsyncSession, env: Env, loaded: Loaded,
                           options: pb.PaymentMethodOptionsInput, cards: Cards | None) -> Loaded | PayNow:
        """Opens (or returns the open) payment attempt of this method on `loaded`, which the caller locked and found
        open for one; a call that moves money after the commit comes back as the card payment to make (`PayNow`)."""
        ...

    async def withdraw_open(self, session: AsyncSession, env: Env, loaded: Loaded, cards: Cards | None) -> None:
        """The payer is about to pay another way: this method's open attempts that could still take money are
        withdrawn, or, paid meanwhile, applied (the intent is then paid: the caller's next check refuses)."""
        ...

    def answer_charge(self, env: Env, charge: Charge, status: str, out: pb.Charge) -> None:
        """Its part of a charge's answer (`status`: the charge's as shown): its `payment_method_options` and what
        its payer's page or the merchant needs of it."""
        ...

    def answer_intent(self, env: Env, latest: Charge, out: pb.PaymentIntent) -> None:
        """Its part of the answer of an intent whose current attempt, `latest`, is of this method."""
        ...

    def holding(self) -> sa.ColumnElement[bool] | None:
        """Which of its charges (a condition on `Charge`) keep their intent's units held until the intent expires
        (server/products/stock.py), beside what the intent's status holds; None when none does."""
        ...

    async def offered(self, session: AsyncSession, merchant_id: str, livemode: bool) -> bool:
        """Whether the hosted checkout page offers it to the merchant's shoppers in that mode."""
        ...

    async def renews_with(self, session: AsyncSession, intent: PaymentIntent) -> SavedPaymentMethod | None:
        """The saved card a subscription whose first payment `intent` was renews with, off-session
        (`charge_automatically`); None when its renewals are e-mailed invoices (`send_invoice`)."""
        ...


@cache
def registered() -> Mapping[str, PaymentMethod]:
    """Every method's handler by name, in the order the API lists them. Made once,
    on first use rather than at import: the handlers open attempts through modules that ask this one (settle, the
    chain listener, server/cards)."""
    from server.cards.method import CARD_METHOD
    from server.payment_intents.crypto_method import CRYPTO_METHOD

    return {CRYPTO_METHOD.name: CRYPTO_METHOD, CARD_METHOD.name: CARD_METHOD}


def of(name: str) -> PaymentMethod:
    """The handler of the method `name` (an intent's or a charge's `payment_method_type`): crypto's for "" (an
    intent no method was chosen for yet) and for a name no handler has, as it was before there were handlers."""
    methods = registered()
    return methods.get(name) or methods[DEFAULT]
