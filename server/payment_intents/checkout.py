"""The hosted checkout calls: who may act on an intent, and the refusals the checkout page understands.

Credentials: the merchant's public key (`key`) plus the intent's client secret, sent in the body or inside the
`request` JSON object string; or a secret API key (HTTP Basic, or `key` inside `request`), which needs no client
secret. Order of refusals: a bad key → 401; an intent of another merchant or mode → 404; a wrong client secret →
401; an expired or unusable intent → 409 `ErrStatusUnexpected` (the spec's value, kept verbatim).
"""

from __future__ import annotations

from typing import TypeVar

from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards.accounts import Cards
from server.cards.payments import PayNow
from server.clock import now_of
from server.context import Caller
from server.errors import Conflict, NotFound, Unauthenticated
from server.payment_intents import attempts, service, settle
from server.payment_intents.aggregate import Loaded, load_one
from server.payment_intents.convert import public_view, to_proto
from server.payment_intents.env import Env
from server.payment_intents.states import OPEN_FOR_PAYMENT, Status, UnexpectedState
from server.rpc.auth import Authenticator

M = TypeVar("M", pb.GetCheckoutPaymentIntentRequest, pb.UpdateCheckoutPaymentIntentRequest)


class CheckoutUnusable(Conflict):
    reason = "ErrStatusUnexpected"


async def checkout_caller(auth: Authenticator, header_caller: Caller | None, key: str) -> tuple[Caller, bool]:
    """(caller, trusted): trusted callers used a secret key and need no client secret."""
    if header_caller is not None:
        return header_caller, True
    if key.startswith("sk_"):
        caller = await auth.resolve(key)
        if caller is None or caller.key_kind != "secret" or caller.role:
            raise Unauthenticated("key: invalid API key")  # an approver key approves, and nothing else
        return caller, True
    if not key:
        raise Unauthenticated("key and client_secret are required")
    return await auth.public_key_caller(key), False


async def open_intent(session: AsyncSession, env: Env, caller: Caller, trusted: bool, intent_id: str,
                      client_secret: str, *, for_update: bool = False) -> Loaded:
    row = await service.find(session, caller, intent_id)
    if row is None:
        raise NotFound("payment_intent", intent_id)
    if not trusted and not (client_secret and env.secrets.matches(row.id, row.livemode, client_secret)):
        raise Unauthenticated("client_secret: does not match this payment intent")
    if for_update:
        row = await settle.lock(session, row.id) or row
    return await load_one(session, row)


def answer(env: Env, loaded: Loaded, trusted: bool, now: int | None = None) -> pb.PaymentIntent:
    """The whole intent for a secret-key caller; the public projection for a public key + client secret."""
    intent = to_proto(env, loaded, now)
    return intent if trusted else public_view(intent)


def check_viewable(loaded: Loaded, now: int) -> None:
    """The page shows an intent until it is canceled or has expired unpaid, or, still open for payment, the invoice
    it pays was closed (the page would show the deposit address again); a paid one stays visible."""
    intent = loaded.intent
    if intent.status == Status.CANCELED or (intent.status == Status.REQUIRES_PAYMENT_METHOD
                                            and intent.expired_at <= now):
        raise CheckoutUnusable("the payment session has expired or was canceled")
    if intent.status in OPEN_FOR_PAYMENT and (closed := attempts.closed_invoice(loaded)):
        raise CheckoutUnusable(f"the invoice this payment is for is {closed}")


async def choose(session: AsyncSession, env: Env, loaded: Loaded, request: pb.UpdateCheckoutPaymentIntentRequest,
                 cards: Cards | None = None) -> Loaded | PayNow:
    check_viewable(loaded, now_of(session))
    try:
        return await service.choose_method(session, env, loaded, request.payment_method_type,
                                           request.payment_method_options, cards)
    except UnexpectedState as e:
        raise CheckoutUnusable(f"the payment session cannot take a payment now ({e.status})") from None
