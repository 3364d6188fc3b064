"""A merchant's provider_a keys per mode: set by the operator, sealed at rest, opened only to call the provider.

`Cards` is what card code needs besides the database, passed explicitly (no module globals): the sealing box, the
provider client factory and the read-through interval.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards.models import ProviderAccount
from server.clock import now_of
from server.errors import invalid
from server.rails.card import CardProvider
from server.rails.provider_a import PROVIDER
from server.sealing import SecretBox

# A pending card charge is asked about at most this often (per charge, whoever reads the intent).
READ_THROUGH_SECONDS = 3


@dataclass(frozen=True)
class Cards:
    box: SecretBox
    clients: Callable[[str], CardProvider]  # a merchant's secret key → its provider account
    read_through_seconds: int = READ_THROUGH_SECONDS


@dataclass(frozen=True)
class Account:
    """A merchant's provider_a account in one mode, opened: a client with its secret key, and the public parts."""

    merchant_id: str
    livemode: bool
    publishable_key: str
    client: CardProvider
    webhook_secret: str


def _check_key(field: str, value: str, prefixes: tuple[str, ...], livemode: bool) -> str:
    value = value.strip()
    mode = "live" if livemode else "test"
    if not value:
        raise invalid(field, "must not be empty")
    if not any(value.startswith(f"{p}_{mode}_") for p in prefixes):
        raise invalid(field, f"a {mode}-mode key starts with {' or '.join(f'{p}_{mode}_' for p in prefixes)}")
    if len(value) > 255 or not value.isascii() or any(c.isspace() for c in value):
        raise invalid(field, "is not a provider_a key")
    return value


async def set_keys(session: AsyncSession, box: SecretBox, *, merchant_id: str, livemode: bool, secret_key: str,
                   publishable_key: str, webhook_secret: str = "") -> ProviderAccount:
    """Stores (or replaces) the merchant's provider_a keys for one mode; the secrets sealed."""
    secret_key = _check_key("secret_key", secret_key, ("sk", "rk"), livemode)
    publishable_key = _check_key("publishable_key", publishable_key, ("pk",), livemode)
    webhook_secret = webhook_secret.strip()
    if webhook_secret and not webhook_secret.startswith("whsec_"):
        raise invalid("webhook_secret", "a provider_a webhook signing secret starts with whsec_")
    now = now_of(session)
    row = await session.get(ProviderAccount, (merchant_id, livemode, PROVIDER))
    if row is None:
        row = ProviderAccount(merchant_id=merchant_id, livemode=livemode, provider=PROVIDER, secret_key="",
                              publishable_key="", created=now, updated=now)
    row.secret_key = box.seal(secret_key, livemode=livemode)
    row.publishable_key = publishable_key
    row.webhook_secret = box.seal(webhook_secret, livemode=livemode) if webhook_secret else ""
    row.updated = now
    session.add(row)
    await session.flush()
    return row


async def account(session: AsyncSession, cards: Cards, merchant_id: str, livemode: bool) -> Account | None:
    row = await session.get(ProviderAccount, (merchant_id, livemode, PROVIDER))
    if row is None:
        return None
    return Account(merchant_id=merchant_id, livemode=livemode, publishable_key=row.publishable_key,
                   client=cards.clients(cards.box.open(row.secret_key)),
                   webhook_secret=cards.box.open(row.webhook_secret) if row.webhook_secret else "")
