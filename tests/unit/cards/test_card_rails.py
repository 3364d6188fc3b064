"""The card seam (issue 9): server/cards speaks only to the card family's contract (server/rails/card.py), so a
second provider is its package plus one registry line. `provider_x` below is such a package in miniature; it calls
nobody (no provider is reached here: the e2e card tests run provider_a against localstripe)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from server.cards import accounts, outcome
from server.cards.accounts import Cards
from server.cards.limits import Limited
from server.cards.models import ProviderAccount
from server.config import load_settings
from server.db import Database
from server.db.migrate import upgrade
from server.errors import InvalidArgument, NotFound
from server.ids import new_id
from server.merchants.models import Merchant
from server.rails import registry
from server.rails.card import BadKey, CardProvider, PaymentEvent
from server.sealing import SecretBox

SETTINGS = load_settings({})


@dataclass(frozen=True)
class XClient:
    """Stands for a merchant's account at provider_x; only its key is looked at."""

    secret_key: str


@dataclass
class ProviderXRail:
    name: str = "provider_x"
    family: str = "card"
    token: re.Pattern[str] = re.compile(r"xtok_[a-z0-9]{4,40}")
    signature_header: str = "X-Signature"

    def client(self, secret_key: str) -> CardProvider:
        return XClient(secret_key)  # type: ignore[return-value]

    def check_keys(self, *, livemode: bool, secret_key: str, publishable_key: str, webhook_secret: str) -> None:
        if not secret_key.startswith("xsk_"):
            raise BadKey("secret_key", "a provider_x key starts with xsk_")

    def payment_event(self, payload: bytes, signature: str, secret: str) -> PaymentEvent | None:
        return None  # every event of this test is signed but about something else


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(registry.PROVIDERS, "provider_x", lambda settings: ProviderXRail())
    yield


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'cards.db'}"
    upgrade(url)
    database = Database(url)
    yield database
    asyncio.run(database.close())


@pytest.fixture
def cards(registered: None, tmp_path: Path) -> Cards:
    return Cards(box=SecretBox(Fernet.generate_key().decode(), tmp_path), rails=registry.card_rails(SETTINGS))


async def _merchant(db: Database) -> str:
    async with db.transaction() as session:
        merchant = Merchant(id=new_id("mch"), name="Shop", created=1)
        session.add(merchant)
    return merchant.id


async def _merchant_at_x(db: Database, cards: Cards, secret_key: str = "xsk_secret",
                         webhook_secret: str = "") -> str:
    """A merchant with provider_x test keys."""
    merchant_id = await _merchant(db)
    async with db.transaction() as session:
        await accounts.set_keys(session, cards.box, cards.rails["provider_x"], merchant_id=merchant_id,
                                livemode=False, secret_key=secret_key, publishable_key="xpk_public",
                                webhook_secret=webhook_secret)
    return merchant_id


def test_a_registered_provider_is_one_of_the_runtimes_card_rails(registered: None) -> None:
    rails = registry.card_rails(SETTINGS)
    assert sorted(rails) == ["provider_a", "provider_x"]
    assert rails["provider_x"].family == rails["provider_a"].family == "card"


def test_keys_are_checked_by_their_providers_rail_and_a_refused_key_is_not_stored(db: Database,
                                                                                 cards: Cards) -> None:
    async def run() -> None:
        merchant_id = await _merchant(db)
        with pytest.raises(InvalidArgument, match=r"^secret_key: a provider_x key starts with xsk_"):
            async with db.transaction() as session:
                await accounts.set_keys(session, cards.box, cards.rails["provider_x"], merchant_id=merchant_id,
                                        livemode=False, secret_key="sk_test_abc", publishable_key="pk")
        async with db.read() as session:
            assert await session.get(ProviderAccount, (merchant_id, False, "provider_x")) is None
            assert not await accounts.takes_cards(session, merchant_id, False)

    asyncio.run(run())


def test_a_merchants_account_opens_at_the_provider_it_has_keys_at(db: Database, cards: Cards) -> None:
    async def run() -> None:
        merchant_id = await _merchant_at_x(db, cards, secret_key=" xsk_secret ")
        async with db.read() as session:
            acct = await accounts.account(session, cards, merchant_id, False)
            assert await accounts.takes_cards(session, merchant_id, False)
            assert await accounts.account(session, cards, merchant_id, True) is None
            assert await accounts.account_at(session, cards, "provider_a", merchant_id, False) is None
            row = await session.get(ProviderAccount, (merchant_id, False, "provider_x"))
        assert acct is not None and acct.provider == "provider_x" and acct.publishable_key == "xpk_public"
        assert isinstance(acct.client, Limited)  # every call through the merchant's places (DESIGN §16)
        assert acct.client.inner == XClient("xsk_secret")  # the rail's client, with the key opened from its seal
        assert row is not None and "xsk_secret" not in row.secret_key  # sealed at rest

    asyncio.run(run())


def test_a_webhook_is_read_with_its_providers_signature_header(db: Database, cards: Cards) -> None:
    async def run() -> None:
        merchant_id = await _merchant_at_x(db, cards, webhook_secret="xwh")
        env: Any = None  # never read: no event here is about a payment
        with pytest.raises(InvalidArgument, match=r"^X-Signature: missing"):
            await outcome.webhook(db, env, cards, "provider_x", merchant_id, b"{}",
                                  {"stripe-signature": "t=1,v1=00"})
        await outcome.webhook(db, env, cards, "provider_x", merchant_id, b"{}",
                              {"x-signature": "anything"})  # verified by its rail; about nothing: acknowledged
        with pytest.raises(NotFound):
            await outcome.webhook(db, env, cards, "provider_y", merchant_id, b"{}",
                                  {"x-signature": "anything"})

    asyncio.run(run())
