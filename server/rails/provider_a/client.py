"""provider_a through the official `stripe` library (DESIGN §9): the few calls card payments need, async.

One `ProviderA` per merchant key: the library's `StripeClient` with its own key and base address, so merchants never
share a global `stripe.api_key`. `api_base` points it at localstripe in the tests and `make run`; empty means
Stripe's own API. Nothing here knows paygate's rows: amounts are minor-unit integers, ids are the provider's.

What the provider answers is translated into small frozen values (`Payment`, `Card`, `ProviderRefund`), Stripe's
status strings into paygate's (server/rails/card.py `ProviderPaymentStatus`, `ProviderRefundStatus`) with one table
each (`PAYMENT_STATUS`, `REFUND_STATUS`; a string they do not list is logged and becomes the value nothing is decided
on), and its errors into `Declined` (the card was refused: a payer's problem, recorded on the charge), `UnknownCard`
(a card token it does not know: the payer's input) and `ProviderUnavailable` (anything else: unreachable, refused
request, bad key), which never carries the key or a card number.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from server.rails.card import (
    BadKey,
    BadSignature,
    Card,
    Declined,
    Payment,
    PaymentEvent,
    ProviderPaymentStatus,
    ProviderRefund,
    ProviderRefundStatus,
    ProviderUnavailable,
    UnknownCard,
)

if TYPE_CHECKING:
    import stripe

log = logging.getLogger("paygate.provider_a")
# DESIGN §16: a call is given up after 10 s and tried once more (`max_network_retries`), so a stuck provider holds
# a payment at most about 20 s, and never a database transaction (server/cards/calls.py).
TIMEOUT_SECONDS = 10.0
RETRIES = 1
PROVIDER = "provider_a"
PAGE_SIZE = 100  # the most objects one page of a provider_a list holds
S = TypeVar("S", ProviderPaymentStatus, ProviderRefundStatus)
# Stripe's PaymentIntent statuses, as paygate names them.
PAYMENT_STATUS: dict[str, ProviderPaymentStatus] = {
    "requires_payment_method": ProviderPaymentStatus.REQUIRES_PAYMENT_METHOD,
    "requires_confirmation": ProviderPaymentStatus.REQUIRES_CONFIRMATION,
    "requires_action": ProviderPaymentStatus.REQUIRES_ACTION,
    "processing": ProviderPaymentStatus.PROCESSING,
    "requires_capture": ProviderPaymentStatus.REQUIRES_CAPTURE,
    "succeeded": ProviderPaymentStatus.SUCCEEDED,
    "canceled": ProviderPaymentStatus.CANCELED,
}
# Stripe's Refund statuses: `requires_action` (the bank asks the customer for details) is not settled yet either.
REFUND_STATUS: dict[str, ProviderRefundStatus] = {
    "pending": ProviderRefundStatus.PENDING,
    "requires_action": ProviderRefundStatus.PENDING,
    "succeeded": ProviderRefundStatus.SUCCEEDED,
    "failed": ProviderRefundStatus.FAILED,
    "canceled": ProviderRefundStatus.CANCELED,
}


def _get(obj: Any, name: str, default: Any = None) -> Any:
    try:
        value = obj[name] if obj is not None else default
    except (KeyError, TypeError):
        return default
    return default if value is None else value


def _status(table: Mapping[str, S], obj: Any, unknown: S) -> S:
    """`obj`'s status in paygate's words; one `table` does not list is logged for the operator and taken as
    `unknown`."""
    value = str(_get(obj, "status", ""))
    status = table.get(value)
    if status is None:
        log.warning("provider_a status unknown to paygate", extra={
            "provider_status": value[:40], "provider_object": str(_get(obj, "object", ""))[:40],
            "provider_id": str(_get(obj, "id", ""))[:100], "taken_as": str(unknown)})
        return unknown
    return status


def payment_of(obj: Any) -> Payment:
    error = _get(obj, "last_payment_error") or {}
    method = _get(obj, "payment_method", "")
    status = _status(PAYMENT_STATUS, obj, ProviderPaymentStatus.UNKNOWN)
    return Payment(id=str(_get(obj, "id", "")), status=status,
                   client_secret=str(_get(obj, "client_secret", "")), amount=int(_get(obj, "amount", 0)),
                   currency=str(_get(obj, "currency", "")), customer=str(_get(obj, "customer", "") or ""),
                   payment_method=str(method if isinstance(method, str) else _get(method, "id", "")),
                   metadata={str(k): str(v) for k, v in dict(_get(obj, "metadata", {}) or {}).items()},
                   failure_code=str(_get(error, "decline_code", "") or _get(error, "code", "") or ""),
                   failure_message=str(_get(error, "message", "") or ""), created=int(_get(obj, "created", 0)))


def card_of(obj: Any) -> Card:
    """A PaymentMethod (details under `card`) or a legacy card object (details at the top)."""
    details = _get(obj, "card") if _get(obj, "object") == "payment_method" else obj
    return Card(id=str(_get(obj, "id", "")), brand=str(_get(details, "brand", "")).lower(),
                last4=str(_get(details, "last4", "")), exp_month=int(_get(details, "exp_month", 0)),
                exp_year=int(_get(details, "exp_year", 0)), funding=str(_get(details, "funding", "")),
                country=str(_get(details, "country", ""))[:2], fingerprint=str(_get(details, "fingerprint", "")))


def _declined(e: stripe.CardError) -> Declined:
    err = e.error
    code = str(getattr(err, "decline_code", None) or e.code or "card_declined")
    return Declined(code, str(getattr(err, "message", None) or e.user_message or "the card was declined"))


def _stripe() -> Any:
    """The `stripe` library, imported on first use: it is large, and most processes (a scheduler, a merchant without
    cards) never call provider_a."""
    import stripe

    return stripe


class ProviderA:
    """provider_a with one merchant's secret key: a `CardProvider` (server/rails/card.py)."""

    def __init__(self, secret_key: str, api_base: str = "", timeout: float = TIMEOUT_SECONDS) -> None:
        stripe = _stripe()
        base = {"api": api_base} if api_base else None
        self._client = stripe.StripeClient(secret_key, base_addresses=base,
                                           http_client=stripe.HTTPXClient(timeout=timeout), max_network_retries=RETRIES)
        self._v1 = self._client.v1

    async def _call(self, what: str, fn: Callable[..., Any], *args: Any, missing_card: bool = False,
                    **kwargs: Any) -> Any:
        """`missing_card`: the call names a card token, so "no such object" is the payer's input (`UnknownCard`)."""
        stripe = _stripe()
        try:
            obj = await fn(*args, **kwargs)
            return obj.to_dict() if isinstance(obj, stripe.StripeObject) else obj
        except stripe.CardError as e:
            raise _declined(e) from None
        except stripe.InvalidRequestError as e:
            if missing_card and (e.code == "resource_missing" or e.http_status == 404):
                raise UnknownCard(f"provider_a knows no such card token ({what})") from None
            raise self._unavailable(what, e) from None
        except stripe.StripeError as e:
            raise self._unavailable(what, e) from None

    @staticmethod
    def _unavailable(what: str, e: stripe.StripeError) -> ProviderUnavailable:
            # The provider's own words (never our key: the library does not echo it) for the operator's log.
        log.warning("provider_a call failed", extra={"call": what, "status": e.http_status,
                                                     "error": type(e).__name__, "provider_message": str(e)[:200]})
        return ProviderUnavailable(f"provider_a refused or did not answer {what}")

    async def create_payment(self, *, amount: int, currency: str, metadata: dict[str, str], idempotency_key: str,
                             customer: str = "") -> Payment:
        """With `customer`, the card the payer confirms with is kept for that customer: Stripe attaches it on
        success (`setup_future_usage: off_session`), so an off-session charge may reuse it. A Stripe-like server
        that refuses the parameter (localstripe answers 400 "Unexpected setup_future_usage") is asked again
        without it; `keep_card` then attaches the card once paid."""
        stripe = _stripe()
        params: dict[str, Any] = {"amount": amount, "currency": currency.lower(), "metadata": metadata,
                                  "payment_method_types": ["card"]}
        if customer:
            params.update(customer=customer, setup_future_usage="off_session")
        options = {"idempotency_key": idempotency_key}
        try:
            obj = (await self._v1.payment_intents.create_async(params=params, options=options)).to_dict()
        except stripe.InvalidRequestError as e:
            if not (customer and e.http_status == 400 and "setup_future_usage" in str(e)):
                raise self._unavailable("create_payment", e) from None
            del params["setup_future_usage"]
            obj = await self._call("create_payment", self._v1.payment_intents.create_async, params=params,
                                   options=options)
        except stripe.StripeError as e:
            raise self._unavailable("create_payment", e) from None
        return payment_of(obj)

    async def confirm_with(self, payment_id: str, payment_method: str, *, customer: str = "",
                           idempotency_key: str) -> Payment:
        """Attaches `payment_method` to the PaymentIntent and confirms it server-side. A decline raises `Declined`
        carrying the PaymentIntent as it is after the attempt."""
        update: dict[str, Any] = {"payment_method": payment_method}
        if customer:
            update["customer"] = customer
        await self._call("update_payment", self._v1.payment_intents.update_async, payment_id, params=update,
                         options={"idempotency_key": idempotency_key + "-attach"})
        try:
            obj = await self._call("confirm_payment", self._v1.payment_intents.confirm_async, payment_id,
                                   options={"idempotency_key": idempotency_key + "-confirm"})
        except Declined as e:
            e.payment = await self.retrieve_payment(payment_id)
            raise
        return payment_of(obj)

    async def pay_off_session(self, *, amount: int, currency: str, customer: str, payment_method: str,
                              metadata: dict[str, str], idempotency_key: str) -> Payment:
        """A saved card charged with no payer present (a saved-card checkout, a subscription renewal)."""
        params = {"amount": amount, "currency": currency.lower(), "customer": customer,
                  "payment_method": payment_method, "metadata": metadata, "payment_method_types": ["card"],
                  "confirm": True, "off_session": True}
        obj = await self._call("pay_off_session", self._v1.payment_intents.create_async, params=params,
                               options={"idempotency_key": idempotency_key})
        return payment_of(obj)

    async def retrieve_payment(self, payment_id: str) -> Payment:
        return payment_of(await self._call("retrieve_payment", self._v1.payment_intents.retrieve_async, payment_id))

    async def recent_payments(self, *, since: int, limit: int) -> list[Payment]:
        """provider_a's PaymentIntents made at or after `since`, a page of at most `PAGE_SIZE` at a time, out of at
        most `limit` listed. Stripe filters by `created` (and lists newest first); a Stripe-like server that refuses
        the filter (localstripe answers 400 "Unexpected created") is asked again without it. Either way each payment's
        own `created` is checked here: a provider's filter is never trusted."""
        stripe = _stripe()
        query: dict[str, Any] = {"created": {"gte": since}}
        found: list[Payment] = []
        listed, after = 0, ""
        while listed < limit:
            params = {**query, "limit": min(PAGE_SIZE, limit - listed)}
            if after:
                params["starting_after"] = after
            try:
                page = (await self._v1.payment_intents.list_async(params=params)).to_dict()
            except stripe.InvalidRequestError as e:
                if not query or e.http_status != 400:
                    raise self._unavailable("list_payments", e) from None
                query = {}  # the filter refused: the same page again, unfiltered
                continue
            except stripe.StripeError as e:
                raise self._unavailable("list_payments", e) from None
            objs = list(_get(page, "data", []) or [])
            listed += len(objs)
            found += [p for p in map(payment_of, objs) if p.created >= since]
            if not objs or not _get(page, "has_more", False):
                break
            after = str(_get(objs[-1], "id", ""))
        return found

    async def cancel_payment(self, payment_id: str) -> Payment:
        return payment_of(await self._call("cancel_payment", self._v1.payment_intents.cancel_async, payment_id))

    async def retrieve_card(self, payment_method: str) -> Card:
        return card_of(await self._call("retrieve_card", self._v1.payment_methods.retrieve_async, payment_method))

    async def keep_card(self, payment_method: str, customer: str) -> Card:
        """The card a payment for `customer` was paid with, attached to that customer unless it already is (Stripe
        attached it at the payment: `create_payment`); attaching it again would be refused."""
        obj = await self._call("retrieve_card", self._v1.payment_methods.retrieve_async, payment_method)
        if _get(obj, "object") == "payment_method" and _get(obj, "customer") != customer:
            obj = await self._call("attach_card", self._v1.payment_methods.attach_async, payment_method,
                                   params={"customer": customer})
        return card_of(obj)

    async def card_from_token(self, token: str) -> Card:
        """A card token (Stripe.js `createToken`) as something a PaymentIntent can be confirmed with: a PaymentMethod
        made from it on Stripe; localstripe makes none from a token, so there the token's own card is used."""
        stripe = _stripe()
        try:
            return card_of((await self._v1.payment_methods.create_async(
                params={"type": "card", "card": {"token": token}})).to_dict())
        except stripe.InvalidRequestError as e:
            if e.code == "resource_missing":
                raise UnknownCard("provider_a knows no such card token") from None
            if e.http_status != 400:
                raise self._unavailable("create_payment_method", e) from None
        except stripe.CardError as e:
            raise _declined(e) from None
        except stripe.StripeError as e:
            raise self._unavailable("create_payment_method", e) from None
        token_obj = await self._call("retrieve_token", self._v1.tokens.retrieve_async, token, missing_card=True)
        if not _get(token_obj, "card"):
            raise UnknownCard("the token is not a card's")
        return card_of(_get(token_obj, "card"))

    async def save_token(self, customer: str, token: str) -> Card:
        """Keeps the tokenized card on the provider customer (a card source: both Stripe and localstripe)."""
        obj = await self._call("save_card", self._v1.customers.payment_sources.create_async, customer,
                               params={"source": token}, missing_card=True)
        return card_of(obj)

    async def create_customer(self, *, metadata: dict[str, str], idempotency_key: str, email: str = "") -> str:
        params: dict[str, Any] = {"metadata": metadata}
        if email:
            params["email"] = email
        obj = await self._call("create_customer", self._v1.customers.create_async, params=params,
                               options={"idempotency_key": idempotency_key})
        return str(_get(obj, "id", ""))

    async def refund(self, *, payment_id: str, amount: int, metadata: dict[str, str],
                     idempotency_key: str) -> ProviderRefund:
        obj = await self._call("refund", self._v1.refunds.create_async,
                               params={"payment_intent": payment_id, "amount": amount, "metadata": metadata},
                               options={"idempotency_key": idempotency_key})
        return refund_of(obj)

    async def find_refund(self, *, payment_id: str, metadata_key: str, value: str) -> ProviderRefund | None:
        page = await self._call("find_refund", self._v1.refunds.list_async,
                                params={"payment_intent": payment_id, "limit": 100})
        for obj in _get(page, "data", []) or []:
            if str((_get(obj, "metadata", {}) or {}).get(metadata_key, "")) == value:
                return refund_of(obj)
        return None


def refund_of(obj: Any) -> ProviderRefund:
    """A status it cannot read is taken as pending: the refund is read back again, never failed on it (it may be
    paid)."""
    return ProviderRefund(id=str(_get(obj, "id", "")),
                          status=_status(REFUND_STATUS, obj, ProviderRefundStatus.PENDING),
                          amount=int(_get(obj, "amount", 0)))


ClientFactory = Callable[[str], ProviderA]


def client_factory(api_base: str) -> ClientFactory:
    """Clients for one provider_a address, one per merchant secret key."""
    def make(secret_key: str) -> ProviderA:
        return ProviderA(secret_key, api_base)

    return make


# The events about a PaymentIntent's outcome; any other event is acknowledged and ignored.
PAYMENT_EVENTS = frozenset({"payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.processing",
                            "payment_intent.requires_action", "payment_intent.canceled",
                            "payment_intent.amount_capturable_updated"})


class ProviderARail:
    """provider_a as a card rail of the registry (server/rails/registry.py, `PROVIDERS`; server/rails/card.py
    `CardRail`). It has no addresses, balances or nonces, so it implements none of those capabilities."""

    family = "card"
    token = re.compile(r"tok_[A-Za-z0-9_]{1,200}")  # Stripe.js `createToken`
    signature_header = "Stripe-Signature"

    def __init__(self, api_base: str = "") -> None:
        self.name = PROVIDER
        self.clients = client_factory(api_base)

    @classmethod
    def build(cls, api_base: str = "") -> ProviderARail:
        return cls(api_base)

    def client(self, secret_key: str) -> ProviderA:
        return self.clients(secret_key)

    def check_keys(self, *, livemode: bool, secret_key: str, publishable_key: str, webhook_secret: str) -> None:
        _check_key("secret_key", secret_key, ("sk", "rk"), livemode)
        _check_key("publishable_key", publishable_key, ("pk",), livemode)
        if webhook_secret and not webhook_secret.startswith("whsec_"):
            raise BadKey("webhook_secret", "a provider_a webhook signing secret starts with whsec_")

    def payment_event(self, payload: bytes, signature: str, secret: str) -> PaymentEvent | None:
        event = verify_event(payload, signature, secret)
        kind, data = event.get("type"), event.get("data")
        obj = data.get("object") if isinstance(data, dict) else None
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        if not isinstance(kind, str) or kind not in PAYMENT_EVENTS or not isinstance(obj, dict) \
                or not isinstance(meta, dict):
            return None  # signed, but not about a payment paygate made
        payment_id, charge_id = obj.get("id"), meta.get("paygate_charge_id")
        if not isinstance(payment_id, str) or not isinstance(charge_id, str) or not charge_id:
            return None
        return PaymentEvent(payment_id=payment_id, charge_id=charge_id)


def _check_key(field: str, value: str, prefixes: tuple[str, ...], livemode: bool) -> None:
    mode = "live" if livemode else "test"
    if not value:
        raise BadKey(field, "must not be empty")
    if not any(value.startswith(f"{p}_{mode}_") for p in prefixes):
        raise BadKey(field, f"a {mode}-mode key starts with {' or '.join(f'{p}_{mode}_' for p in prefixes)}")
    if len(value) > 255 or not value.isascii() or any(c.isspace() for c in value):
        raise BadKey(field, "is not a provider_a key")


def verify_event(payload: bytes, signature: str, secret: str) -> dict[str, Any]:
    """The event of a signed webhook (the library checks the HMAC and the timestamp's tolerance), as plain JSON."""
    stripe = _stripe()
    try:
        stripe.WebhookSignature.verify_header(payload.decode("utf-8"), signature, secret,
                                              stripe.Webhook.DEFAULT_TOLERANCE)
        event = json.loads(payload)
    except (stripe.SignatureVerificationError, UnicodeDecodeError, ValueError):
        raise BadSignature("the webhook's Stripe-Signature does not verify") from None
    if not isinstance(event, dict):
        raise BadSignature("the webhook's body is not an event")
    return event
