"""A merchant's card provider keys per mode: set by the operator, sealed at rest, opened only to call the provider.

`Cards` is what card code needs besides the database, passed explicitly (no module globals): the sealing box, the
card rails of the registry by provider id (server/rails/card.py `CardRail`), the read-through interval and the
process's limit of provider calls per merchant (limits.py), which every opened account's client goes through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards.limits import CallLimiter
from server.cards.models import ProviderAccount
from server.clock import now_of
from server.errors import invalid
from server.rails.card import BadKey, CardProvider, CardRail
from server.sealing import SecretBox


class ClientStandIn(Protocol):
    """What a unit of work sees instead of a provider client (server/cards/calls.py `Replay`)."""

    def client(self, account: str, real: CardProvider) -> CardProvider: ...


# A pending card charge is asked about at most this often (per charge, whoever reads the intent).
READ_THROUGH_SECONDS = 3


@dataclass(frozen=True)
class Cards:
    box: SecretBox
    rails: Mapping[str, CardRail]  # provider id → its rail
    read_through_seconds: int = READ_THROUGH_SECONDS
    limiter: CallLimiter = field(default_factory=CallLimiter)  # this process's places per merchant (limits.py)
    replay: ClientStandIn | None = None  # inside `calls.unit`: no provider call from a unit of work


@dataclass(frozen=True)
class Account:
    """A merchant's account at a card provider in one mode, opened: a client with its secret key, and the public
    parts."""

    merchant_id: str
    livemode: bool
    provider: str
    publishable_key: str
    client: CardProvider
    webhook_secret: str
    rail: CardRail


async def set_keys(session: AsyncSession, box: SecretBox, rail: CardRail, *, merchant_id: str, livemode: bool,
                   secret_key: str, publishable_key: str, webhook_secret: str = "") -> ProviderAccount:
    """Stores (or replaces) the merchant's keys at `rail`'s provider for one mode; the secrets sealed."""
    secret_key, publishable_key, webhook_secret = secret_key.strip(), publishable_key.strip(), webhook_secret.strip()
    try:
        rail.check_keys(livemode=livemode, secret_key=secret_key, publishable_key=publishable_key,
                        webhook_secret=webhook_secret)
    except BadKey as e:
        raise invalid(e.field, e.problem) from None
    now = now_of(session)
    row = await session.get(ProviderAccount, (merchant_id, livemode, rail.name))
    if row is None:
        row = ProviderAccount(merchant_id=merchant_id, livemode=livemode, provider=rail.name, secret_key="",
                              publishable_key="", created=now, updated=now)
    row.secret_key = box.seal(secret_key, livemode=livemode)
    row.publishable_key = publishable_key
    row.webhook_secret = box.seal(webhook_secret, livemode=livemode) if webhook_secret else ""
    row.updated = now
    session.add(row)
    await session.flush()
    return row


async def account(session: AsyncSession, cards: Cards, merchant_id: str, livemode: bool) -> Account | None:
    """The account new card payments of the merchant use in this mode: at the provider whose keys were set last."""
    row = (await session.exec(select(ProviderAccount).where(
        ProviderAccount.merchant_id == merchant_id, ProviderAccount.livemode == livemode,
        col(ProviderAccount.provider).in_(sorted(cards.rails))).order_by(
        col(ProviderAccount.updated).desc(), col(ProviderAccount.provider)))).first()
    return _opened(cards, row) if row is not None else None


async def account_at(session: AsyncSession, cards: Cards, provider: str, merchant_id: str,
                     livemode: bool) -> Account | None:
    """The merchant's account at one provider (the one a charge or a webhook names)."""
    row = await session.get(ProviderAccount, (merchant_id, livemode, provider)) if provider in cards.rails else None
    return _opened(cards, row) if row is not None else None


async def every_account(session: AsyncSession, cards: Cards) -> list[tuple[str, bool, str]]:
    """(merchant, livemode, provider) of every merchant's keys at a provider of the registry, in both modes."""
    found = await session.exec(select(ProviderAccount.merchant_id, ProviderAccount.livemode, ProviderAccount.provider)
                               .where(col(ProviderAccount.provider).in_(sorted(cards.rails)))
                               .order_by(col(ProviderAccount.merchant_id), col(ProviderAccount.livemode),
                                         col(ProviderAccount.provider)))
    return [(merchant_id, livemode, provider) for merchant_id, livemode, provider in found]


async def takes_cards(session: AsyncSession, merchant_id: str, livemode: bool) -> bool:
    """Whether the merchant has a card provider's keys for the mode (`paygate merchants set-card-provider`)."""
    row = (await session.exec(select(ProviderAccount.provider).where(
        ProviderAccount.merchant_id == merchant_id, ProviderAccount.livemode == livemode).limit(1))).first()
    return row is not None


def _opened(cards: Cards, row: ProviderAccount) -> Account:
    rail = cards.rails[row.provider]
    client = cards.limiter.limited(row.merchant_id, rail.client(cards.box.open(row.secret_key)))
    if cards.replay is not None:
        client = cards.replay.client(f"{row.provider}:{row.merchant_id}:{int(row.livemode)}", client)
    return Account(merchant_id=row.merchant_id, livemode=row.livemode, provider=row.provider,
                   publishable_key=row.publishable_key, client=client,
                   webhook_secret=cards.box.open(row.webhook_secret) if row.webhook_secret else "", rail=rail)
