"""At most a few card provider calls per merchant at once (DESIGN §16): one merchant's slow or stuck provider account,
or a shopper hammering its checkout, cannot take every connection and task of the process.

`CallLimiter.limited` wraps a merchant's `CardProvider`: each call first takes one of the merchant's
`PER_MERCHANT` places; a call that waits longer than `WAIT_SECONDS` for one is given up as `ProviderUnavailable`
(503 `service_unavailable` at the edge, nothing changed). The places are per process: with `serve --workers N` a
merchant has N times as many, which bounds what one process holds, and that is what the limit protects.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from server.rails.card import Card, CardProvider, Payment, ProviderRefund, ProviderUnavailable

PER_MERCHANT = 4
WAIT_SECONDS = 10.0
T = TypeVar("T")


@dataclass
class _Places:
    free: asyncio.Semaphore
    users: int = 0  # calls holding or waiting for a place: the entry is dropped at 0, so idle merchants cost nothing


@dataclass
class CallLimiter:
    per_merchant: int = PER_MERCHANT
    wait_seconds: float = WAIT_SECONDS
    _places: dict[str, _Places] = field(default_factory=dict)

    def limited(self, merchant_id: str, client: CardProvider) -> CardProvider:
        return Limited(self, merchant_id, client)

    async def run(self, merchant_id: str, call: Callable[[], Awaitable[T]]) -> T:
        places = self._places.get(merchant_id)
        if places is None:
            places = self._places[merchant_id] = _Places(asyncio.Semaphore(self.per_merchant))
        places.users += 1
        try:
            try:
                await asyncio.wait_for(places.free.acquire(), self.wait_seconds)
            except TimeoutError:
                raise ProviderUnavailable(f"{self.per_merchant} card provider calls of this merchant are under way "
                                          "already") from None
            try:
                return await call()
            finally:
                places.free.release()
        finally:
            places.users -= 1
            if places.users == 0:
                del self._places[merchant_id]

    def in_use(self, merchant_id: str) -> int:
        """Calls of the merchant holding or waiting for a place now (for tests and metrics)."""
        places = self._places.get(merchant_id)
        return places.users if places is not None else 0


class Limited:
    """A merchant's `CardProvider` whose every call goes through the merchant's places."""

    def __init__(self, limiter: CallLimiter, merchant_id: str, client: CardProvider) -> None:
        self._run, self._merchant, self._client = limiter.run, merchant_id, client

    @property
    def inner(self) -> CardProvider:
        """The rail's own client under the limit."""
        return self._client

    async def create_payment(self, *, amount: int, currency: str, metadata: dict[str, str], idempotency_key: str,
                             customer: str = "") -> Payment:
        return await self._run(self._merchant, lambda: self._client.create_payment(
            amount=amount, currency=currency, metadata=metadata, idempotency_key=idempotency_key, customer=customer))

    async def confirm_with(self, payment_id: str, payment_method: str, *, customer: str = "",
                           idempotency_key: str) -> Payment:
        return await self._run(self._merchant, lambda: self._client.confirm_with(
            payment_id, payment_method, customer=customer, idempotency_key=idempotency_key))

    async def pay_off_session(self, *, amount: int, currency: str, customer: str, payment_method: str,
                              metadata: dict[str, str], idempotency_key: str) -> Payment:
        return await self._run(self._merchant, lambda: self._client.pay_off_session(
            amount=amount, currency=currency, customer=customer, payment_method=payment_method, metadata=metadata,
            idempotency_key=idempotency_key))

    async def retrieve_payment(self, payment_id: str) -> Payment:
        return await self._run(self._merchant, lambda: self._client.retrieve_payment(payment_id))

    async def recent_payments(self, *, since: int, limit: int) -> list[Payment]:
        return await self._run(self._merchant, lambda: self._client.recent_payments(since=since, limit=limit))

    async def cancel_payment(self, payment_id: str) -> Payment:
        return await self._run(self._merchant, lambda: self._client.cancel_payment(payment_id))

    async def find_refund(self, *, payment_id: str, metadata_key: str, value: str) -> ProviderRefund | None:
        return await self._run(self._merchant, lambda: self._client.find_refund(
            payment_id=payment_id, metadata_key=metadata_key, value=value))

    async def retrieve_card(self, payment_method: str) -> Card:
        return await self._run(self._merchant, lambda: self._client.retrieve_card(payment_method))

    async def keep_card(self, payment_method: str, customer: str) -> Card:
        return await self._run(self._merchant, lambda: self._client.keep_card(payment_method, customer))

    async def card_from_token(self, token: str) -> Card:
        return await self._run(self._merchant, lambda: self._client.card_from_token(token))

    async def save_token(self, customer: str, token: str) -> Card:
        return await self._run(self._merchant, lambda: self._client.save_token(customer, token))

    async def create_customer(self, *, metadata: dict[str, str], idempotency_key: str, email: str = "") -> str:
        return await self._run(self._merchant, lambda: self._client.create_customer(
            metadata=metadata, idempotency_key=idempotency_key, email=email))

    async def refund(self, *, payment_id: str, amount: int, metadata: dict[str, str],
                     idempotency_key: str) -> ProviderRefund:
        return await self._run(self._merchant, lambda: self._client.refund(
            payment_id=payment_id, amount=amount, metadata=metadata, idempotency_key=idempotency_key))
