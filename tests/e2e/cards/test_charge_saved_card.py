"""`ProviderCards.charge_saved_card`, what subscription renewals call: a saved card charged off-session in the
service, and the same idempotency key never charging twice. Called in-process against the service's own database
and localstripe."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import httpx
from sqlmodel.ext.asyncio.session import AsyncSession

from server.boot.composition import build_runtime
from server.clock import Clock
from server.config import load_settings
from server.db import Database
from server.payment_intents.aggregate import load_one
from server.payment_intents.models import PaymentIntent
from server.rails.provider_a import ProviderARail
from server.subscriptions.card_rail import ProviderCards
from server.subscriptions.collect import CardResult
from tests.conftest import ok
from tests.e2e.cards.support import SUCCEEDS, chose_card, new_intent
from tests.harness import Service
from tests.localstripe import LocalStripe


def renew(service: Service, intent_id: str, payment_method_id: str, key: str, api_base: str = "",
          clock: Clock | None = None) -> list[tuple[str, str]]:
    """Charges the intent with the saved card under `key` (provider_a at `api_base` if given), as a renewal does
    (`ProviderCards`, its own units of work); returns its charges (id, status)."""
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})

    async def run() -> list[tuple[str, str]]:
        db = Database(settings.database_url, clock=clock)
        rt = build_runtime(settings, db=db, var_dir=service.workdir)
        if api_base:
            rt = dataclasses.replace(rt, cards=dataclasses.replace(rt.cards,
                                                                   rails={"provider_a": ProviderARail(api_base)}))

        async def nothing_to_lock(session: AsyncSession) -> None:
            return None

        async def noted(session: AsyncSession, result: CardResult) -> None:
            return None

        try:
            await ProviderCards(env=rt, cards=rt.cards).charge_saved_card(
                db, intent_id, payment_method_id, key, lock=nothing_to_lock, outcome=noted)
            async with db.read() as session:
                intent = await session.get(PaymentIntent, intent_id)
                assert intent is not None
                loaded = await load_one(session, intent)
                return [(c.id, c.status) for c in loaded.charges]
        finally:
            await db.close()

    return asyncio.run(run())


def test_charge_saved_card_pays_once_per_idempotency_key(service: Service, api: httpx.Client,
                                                          merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    ann = ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))
    first = new_intent(api, customer=ann["id"])
    chose_card(api, first["id"], save_payment_method=True,
               token=localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS))
    [pm] = ok(api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]}))["payment_methods"]
    renewal = new_intent(api, amount="7", customer=ann["id"])
    charges = renew(service, renewal["id"], pm["id"], "inv_1-attempt-1")
    assert [s for _, s in charges] == ["Success"]
    assert renew(service, renewal["id"], pm["id"], "inv_1-attempt-1") == charges  # the same key: no second charge
    paid = ok(api.get(f"/v1/payment_intents/{renewal['id']}"))
    assert paid["status"] == "Success" and len(paid["charges"]) == 1
    assert paid["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "7"}
