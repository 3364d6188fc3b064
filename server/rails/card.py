"""The card family of rails (DESIGN §9): what paygate asks of a card provider, whichever it is.

A card rail has no addresses, nonces or confirmations. A payment is the provider's PaymentIntent, its outcome comes
from the provider (the confirm answer, its signed webhook, or asking again), and a refund is one provider call.
Amounts are minor-unit integers, ids are the provider's; nothing here knows paygate's rows.
A payment is at most `MAX_AMOUNT_MINOR` minor units (Stripe's limit: eight digits, 999,999.99 USD).

    CardRail       the provider as the registry holds it (server/rails/registry.py, `PROVIDERS`): its id, its
                   merchants' key format, its card tokens, its webhooks' signature, a client per merchant key
    CardProvider   one merchant's account at the provider: payments (and its recent ones), cards and customers,
                   refunds
    statuses       ProviderPaymentStatus, ProviderRefundStatus: paygate's words for a provider's payment and refund
                   statuses; each provider's adapter maps its own onto them (one table there), so nothing outside
                   it reads a provider's strings
    values         Payment, Card, ProviderRefund, PaymentEvent
    errors         Declined (the card was refused: recorded on the charge), UnknownCard (a token the provider does
                   not know), ProviderUnavailable (anything else), BadSignature (a webhook that does not verify),
                   BadKey (an operator's key that is not this provider's)
    to_minor, from_minor   amounts between paygate's Decimal and the minor-unit integers of every card provider

Card code (server/cards/) speaks only to this module, so a second provider is a package beside provider_a
(server/rails/provider_a/, the `stripe` library) and one line of the registry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Protocol

MAX_AMOUNT_MINOR = 99_999_999


class ProviderPaymentStatus(StrEnum):
    """Where a provider's payment stands. The values are what `charges.provider_status` stores and the API shows as
    `provider_a_payload.status` (Stripe's words, which paygate's were first): a StrEnum, so the stored rows are
    unchanged and compare equal to these."""

    REQUIRES_PAYMENT_METHOD = "requires_payment_method"  # no card yet, or the last one was refused
    REQUIRES_CONFIRMATION = "requires_confirmation"  # a card attached, not confirmed yet
    REQUIRES_ACTION = "requires_action"  # the payer must act (3-D Secure)
    PROCESSING = "processing"  # submitted; the provider has not decided yet
    REQUIRES_CAPTURE = "requires_capture"  # authorised only (paygate never asks for a separate capture)
    SUCCEEDED = "succeeded"
    CANCELED = "canceled"
    UNKNOWN = "unknown"  # a status the adapter cannot read (logged there): nothing is decided on it


# The payer has not submitted a card to the payment yet (the spec's flow: their own page confirms it).
UNSUBMITTED = frozenset({ProviderPaymentStatus.REQUIRES_PAYMENT_METHOD, ProviderPaymentStatus.REQUIRES_CONFIRMATION})


class ProviderRefundStatus(StrEnum):
    """Where a provider's refund stands (never stored: a card refund's own status says what paygate made of it)."""

    PENDING = "pending"  # not settled with the card's bank yet (also what an unreadable status becomes)
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"


class ProviderUnavailable(Exception):
    """The provider did not answer, or refused the request for a reason that is not the card's."""


class Declined(Exception):
    """The card was refused (declined, failed authentication): `code` and `message` are the provider's."""

    def __init__(self, code: str, message: str, payment: Payment | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.payment = payment


class UnknownCard(Exception):
    """The provider knows no such card token (or it belongs to another account): the payer's input, not an outage."""


class BadSignature(Exception):
    """A webhook whose signature does not verify, or whose timestamp is outside the tolerance."""


class BadKey(ValueError):
    """An operator's key that is not one of this provider's for the mode: `field` names the key."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def to_minor(amount: Decimal, decimals: int) -> int:
    """10.50 with 2 decimals → 1050. The amount never has more decimals than the currency (validated on input)."""
    scaled = amount.scaleb(decimals)
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{amount} has more than {decimals} decimal places")
    return int(scaled)


def from_minor(value: int, decimals: int) -> Decimal:
    return Decimal(value).scaleb(-decimals)


@dataclass(frozen=True)
class Payment:
    """A provider PaymentIntent, as much of it as paygate reads."""

    id: str
    status: ProviderPaymentStatus
    client_secret: str
    amount: int
    currency: str
    customer: str
    payment_method: str
    metadata: dict[str, str]
    failure_code: str = ""
    failure_message: str = ""
    created: int = 0  # when the provider made it, in Unix seconds


@dataclass(frozen=True)
class Card:
    """A card at the provider (a PaymentMethod `pm_…` or a card source `card_…`): never its number."""

    id: str
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    funding: str
    country: str
    fingerprint: str


@dataclass(frozen=True)
class ProviderRefund:
    id: str
    status: ProviderRefundStatus
    amount: int


@dataclass(frozen=True)
class PaymentEvent:
    """A verified webhook about one of the provider's payments that paygate made: the provider's payment id and the
    charge id paygate put in its metadata. The event's own content is never trusted beyond these: the payment is
    read back from the provider before anything is applied."""

    payment_id: str
    charge_id: str


class CardProvider(Protocol):
    """One merchant's account at a card provider (its secret key inside)."""

    async def create_payment(self, *, amount: int, currency: str, metadata: dict[str, str], idempotency_key: str,
                             customer: str = "") -> Payment: ...

    async def confirm_with(self, payment_id: str, payment_method: str, *, customer: str = "",
                           idempotency_key: str) -> Payment:
        """Attaches a card and confirms server-side; a refusal raises `Declined` carrying the payment after it."""
        ...

    async def pay_off_session(self, *, amount: int, currency: str, customer: str, payment_method: str,
                              metadata: dict[str, str], idempotency_key: str) -> Payment: ...

    async def retrieve_payment(self, payment_id: str) -> Payment: ...

    async def recent_payments(self, *, since: int, limit: int) -> list[Payment]:
        """The payments made at or after `since` (Unix seconds), each as whole as `retrieve_payment`'s, out of at
        most `limit` read from the provider. Checked against `since` here, whatever the provider filtered."""
        ...

    async def cancel_payment(self, payment_id: str) -> Payment:
        """So that a payment of a canceled intent can no longer be finished on the payer's side."""
        ...

    async def find_refund(self, *, payment_id: str, metadata_key: str, value: str) -> ProviderRefund | None:
        """The payment's refund whose metadata says `metadata_key: value`, if the provider made one: a retry asks
        this first, so an answer lost in transit never becomes a second refund (whatever the provider's idempotency
        window)."""
        ...

    async def retrieve_card(self, payment_method: str) -> Card: ...

    async def keep_card(self, payment_method: str, customer: str) -> Card:
        """The card a payment was paid with, attached to the provider `customer` for off-session reuse."""
        ...

    async def card_from_token(self, token: str) -> Card:
        """Raises `UnknownCard` for a token the provider does not know."""
        ...

    async def save_token(self, customer: str, token: str) -> Card:
        """Raises `UnknownCard` for a token the provider does not know."""
        ...

    async def create_customer(self, *, metadata: dict[str, str], idempotency_key: str, email: str = "") -> str: ...

    async def refund(self, *, payment_id: str, amount: int, metadata: dict[str, str],
                     idempotency_key: str) -> ProviderRefund: ...


class CardRail(Protocol):
    """A card provider as the registry holds it: one per process, a client per merchant key."""

    name: str  # the provider's id: in the merchant's keys, the charges and saved cards, and its webhook URL
    family: str  # "card"
    token: re.Pattern[str]  # a card token as the provider's client library makes them
    signature_header: str  # the HTTP header of its webhooks' signature

    def client(self, secret_key: str) -> CardProvider: ...

    def check_keys(self, *, livemode: bool, secret_key: str, publishable_key: str, webhook_secret: str) -> None:
        """Raises `BadKey` for a key (stripped already; the webhook secret may be empty) that is not this
        provider's for the mode."""
        ...

    def payment_event(self, payload: bytes, signature: str, secret: str) -> PaymentEvent | None:
        """The payment a webhook is about, if it verifies with `secret` (else `BadSignature`); None when it is
        signed but about anything else."""
        ...
