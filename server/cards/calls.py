"""Save before calling out (DESIGN §16): no card provider call is made while a database transaction is open.

A slow provider used to hold the unit of work that called it: on SQLite the process's one writer, so every merchant's
writes waited; on PostgreSQL a pooled connection and the intent's row lock. Now:

* **Questions that move no money** (a PaymentIntent created unconfirmed, a provider customer, a card token turned
  into a card, a saved card read back, a payment read or canceled) are asked by replay. A unit of work run under
  `unit` sees its card accounts' clients as stand-ins (`Replay`) that answer from what the provider has said
  already; a question not asked yet stops the unit (`CallNeeded`: rolled back, nothing written), is put to the
  provider with no transaction open, and the unit runs again from the start, under its locks, with the answer (or
  the provider's error) at hand. Each such question is asked under our idempotency keys or changes nothing, so a
  unit that runs again after the world moved asks again only if its question changed.
* **A call that moves money** (a token's confirmation, a saved card charged off-session) is never replayed. The unit
  marks its charge as out at the provider (`payments.mark_out`: `UNCONFIRMED`, with a window of
  `payments.OUT_SECONDS`) and commits, returning a `PayNow`; `pay` then makes the call and applies its answer in a
  unit of its own (`payments.finish`). While a charge is out, the intent takes no other attempt (409). A process that
  dies in between leaves the mark: once the window has passed, the read-through and the scheduler's
  `outcome.ask_unconfirmed` settle it from the provider's word, as for an answer lost in transit, and an
  off-session payment whose answer never came is asked again under its own key (`resume`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards import accounts, payments
from server.cards.accounts import Cards
from server.cards.payments import Answer, PayNow
from server.db import Database
from server.errors import Unavailable
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.models import Charge
from server.rails.card import Card, CardProvider, Declined, Payment, ProviderRefund, ProviderUnavailable, UnknownCard

log = logging.getLogger("paygate.cards")
T = TypeVar("T")
# A unit that keeps needing new answers is given up: each run asks one more question, and the longest path (withdraw
# an open payment, make the provider customer, create the payment, turn the token into a card) asks five.
MOST_RUNS = 8


class CallNeeded(Exception):
    """A question the provider has not answered yet: the unit of work is rolled back to ask it."""

    def __init__(self, key: str, call: Callable[[], Awaitable[Any]]) -> None:
        super().__init__(key)
        self.key, self.call = key, call


@dataclass
class Replay:
    """The provider's answers (or errors) so far, by question, for the runs of one unit of work."""

    answers: dict[str, tuple[bool, Any]] = field(default_factory=dict)

    def client(self, account: str, real: CardProvider) -> CardProvider:
        return _Replaying(self, account, real)

    def answer(self, key: str, call: Callable[[], Awaitable[Any]]) -> Any:
        if key not in self.answers:
            raise CallNeeded(key, call)
        answered, value = self.answers[key]
        if answered:
            return value
        raise value

    async def ask(self, need: CallNeeded) -> None:
        try:
            self.answers[need.key] = (True, await need.call())
        except (ProviderUnavailable, Declined, UnknownCard) as e:
            self.answers[need.key] = (False, e)


async def unit(db: Database, cards: Cards, work: Callable[[AsyncSession, Cards], Awaitable[T]]) -> T:
    """`work(session, cards)` in a write unit of work whose provider questions are asked outside it (above)."""
    replay = Replay()
    replaying = replace(cards, replay=replay)
    for _ in range(MOST_RUNS):
        try:
            async with db.transaction() as session:
                return await work(session, replaying)
        except CallNeeded as need:
            await replay.ask(need)
    raise Unavailable("the card provider's answers kept changing; try again")


async def choose(db: Database, env: Env, cards: Cards,
                 work: Callable[[AsyncSession, Cards], Awaitable[Loaded | PayNow]]) -> Loaded:
    """A choice of how to pay (`payment_intents.service.choose_method` under its caller's lookup and lock): its unit
    of work, then the card payment it left to make, if any."""
    step = await unit(db, cards, work)
    return await pay(db, env, cards, step) if isinstance(step, PayNow) else step


async def pay(db: Database, env: Env, cards: Cards, out: PayNow) -> Loaded:
    """The money call of a committed `PayNow`, with no transaction open, then its answer applied."""
    answer = await call(db, cards, out)
    return await unit(db, cards, lambda session, c: payments.finish(session, env, c, out, answer))


async def call(db: Database, cards: Cards, out: PayNow) -> Answer:
    async with db.read() as session:
        acct = await accounts.account_at(session, cards, out.provider, out.merchant_id, out.livemode)
    if acct is None:
        return Answer(lost=True)  # its keys removed meanwhile: the money may have moved, so the charge stays out
    try:
        if out.payment_id:
            payment = await acct.client.confirm_with(out.payment_id, out.payment_method, customer=out.customer,
                                                     idempotency_key=out.idempotency_key)
        else:
            payment = await acct.client.pay_off_session(
                amount=out.amount_minor, currency=out.currency, customer=out.customer,
                payment_method=out.payment_method, metadata=out.metadata, idempotency_key=out.idempotency_key)
    except Declined as e:
        return Answer(declined=e)
    except ProviderUnavailable:
        return Answer(lost=True)
    return Answer(payment=payment)


async def resume(db: Database, env: Env, cards: Cards, charge: Charge) -> bool:
    """An off-session payment marked out whose answer never came back (its process died): once its window has passed,
    asked again under its own key, which the provider answers with the first request's payment, or makes it now if
    the first never arrived (the intent accepted no other attempt meanwhile). Claimed in the database first, so one
    process asks. True when it was asked."""
    now = db.clock.now()
    async with db.transaction() as session:
        claimed = await session.exec(sa.update(Charge).where(
            col(Charge.id) == charge.id, col(Charge.provider_checked_at) <= now,
            col(Charge.provider_payment_id) == "", col(Charge.status) == payments.ChargeStatus.PENDING,
        ).values(provider_checked_at=now + payments.OUT_SECONDS))
        if getattr(claimed, "rowcount", 0) != 1:
            return False
        out = await payments.resumed(session, env, cards, charge.id)
    if out is None:
        return False
    await pay(db, env, cards, out)
    return True


def _key(account: str, what: str, *args: Any, **kwargs: Any) -> str:
    return json.dumps([account, what, args, kwargs], sort_keys=True, default=str)


class _Replaying:
    """A merchant's `CardProvider` inside a unit of work: answers from the replay, or stops the unit to ask."""

    def __init__(self, replay: Replay, account: str, real: CardProvider) -> None:
        self._replay, self._account, self._real = replay, account, real

    def _ask(self, what: str, call: Callable[[], Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        return self._replay.answer(_key(self._account, what, *args, **kwargs), call)

    async def create_payment(self, *, amount: int, currency: str, metadata: dict[str, str], idempotency_key: str,
                             customer: str = "") -> Payment:
        return self._ask("create_payment", lambda: self._real.create_payment(
            amount=amount, currency=currency, metadata=metadata, idempotency_key=idempotency_key, customer=customer),
            amount=amount, currency=currency, metadata=metadata, idempotency_key=idempotency_key, customer=customer)

    async def confirm_with(self, payment_id: str, payment_method: str, *, customer: str = "",
                           idempotency_key: str) -> Payment:
        raise TypeError("a confirmation moves money: mark the charge out and return a PayNow (calls.pay)")

    async def pay_off_session(self, *, amount: int, currency: str, customer: str, payment_method: str,
                              metadata: dict[str, str], idempotency_key: str) -> Payment:
        raise TypeError("an off-session payment moves money: mark the charge out and return a PayNow (calls.pay)")

    async def retrieve_payment(self, payment_id: str) -> Payment:
        return self._ask("retrieve_payment", lambda: self._real.retrieve_payment(payment_id), payment_id)

    async def recent_payments(self, *, since: int, limit: int) -> list[Payment]:
        return self._ask("recent_payments", lambda: self._real.recent_payments(since=since, limit=limit),
                         since=since, limit=limit)

    async def cancel_payment(self, payment_id: str) -> Payment:
        return self._ask("cancel_payment", lambda: self._real.cancel_payment(payment_id), payment_id)

    async def find_refund(self, *, payment_id: str, metadata_key: str, value: str) -> ProviderRefund | None:
        return self._ask("find_refund", lambda: self._real.find_refund(
            payment_id=payment_id, metadata_key=metadata_key, value=value),
            payment_id=payment_id, metadata_key=metadata_key, value=value)

    async def retrieve_card(self, payment_method: str) -> Card:
        return self._ask("retrieve_card", lambda: self._real.retrieve_card(payment_method), payment_method)

    async def keep_card(self, payment_method: str, customer: str) -> Card:
        return self._ask("keep_card", lambda: self._real.keep_card(payment_method, customer), payment_method,
                         customer)

    async def card_from_token(self, token: str) -> Card:
        return self._ask("card_from_token", lambda: self._real.card_from_token(token), token)

    async def save_token(self, customer: str, token: str) -> Card:
        return self._ask("save_token", lambda: self._real.save_token(customer, token), customer, token)

    async def create_customer(self, *, metadata: dict[str, str], idempotency_key: str, email: str = "") -> str:
        return self._ask("create_customer", lambda: self._real.create_customer(
            metadata=metadata, idempotency_key=idempotency_key, email=email),
            metadata=metadata, idempotency_key=idempotency_key, email=email)

    async def refund(self, *, payment_id: str, amount: int, metadata: dict[str, str],
                     idempotency_key: str) -> ProviderRefund:
        raise TypeError("a refund moves money: server/cards/refunds.py sends it outside the unit of work")

