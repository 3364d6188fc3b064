"""A card charge's provider PaymentIntent is created with our charge id as its idempotency key (DESIGN §9), and our
intent and charge ids in its metadata, so a retried create never makes a second provider payment.

localstripe ignores `Idempotency-Key`, so a recording proxy on loopback stands between paygate's provider_a client
and localstripe: every request still reaches localstripe, and the proxy notes each one's method, path and key.
The choice of cards runs in-process (the service's own code and database), with provider_a at the proxy.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from paygate.v1 import payment_intents_pb2 as pb

from server.boot.composition import build_runtime
from server.cards import calls
from server.config import load_settings
from server.context import Caller
from server.db import Database
from server.payment_intents import service as intents
from server.rails.provider_a import ProviderARail
from tests.conftest import ok
from tests.e2e.cards.provider_proxy import ProviderProxy, Seen, provider_proxy
from tests.e2e.cards.support import SUCCEEDS, new_intent
from tests.e2e.cards.test_saved_cards import customer, save_a_card, saved_methods
from tests.harness import Service
from tests.localstripe import LocalStripe


@pytest.fixture
def recording_proxy(localstripe: LocalStripe) -> Iterator[tuple[str, Seen]]:
    with provider_proxy(localstripe.url) as proxy:
        yield proxy.url, proxy.seen


def choose_cards(service: Service, merchant: dict[str, Any], intent_id: str, api_base: str,
                 fiat: pb.FiatPaymentInput) -> tuple[str, list[tuple[str, str]]]:
    """Chooses cards on the intent in-process, provider_a at `api_base`: (intent status, [(charge id, status)])."""
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})
    caller = Caller(merchant_id=merchant["merchant_id"], livemode=False, key_kind="secret")

    async def run() -> tuple[str, list[tuple[str, str]]]:
        db = Database(settings.database_url)
        rt = build_runtime(settings, db=db, var_dir=service.workdir)
        rt = dataclasses.replace(rt, cards=dataclasses.replace(rt.cards,
                                                               rails={"provider_a": ProviderARail(api_base)}))
        request = pb.UpdatePaymentIntentRequest(id=intent_id, payment_method_type="cards",
                                                payment_method_options=pb.PaymentMethodOptionsInput(fiat=fiat))
        try:
            loaded = await calls.choose(db, rt, rt.cards,
                                        lambda session, cards: intents.update(session, rt, caller, request, cards))
            return loaded.intent.status, [(c.id, c.status) for c in loaded.charges]
        finally:
            await db.close()

    return asyncio.run(run())


def test_the_provider_payment_is_created_under_our_charge_id(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        recording_proxy: tuple[str, Seen]) -> None:
    url, seen = recording_proxy
    intent = new_intent(api)
    _, [(charge_id, _)] = choose_cards(service, merchant, intent["id"], url, pb.FiatPaymentInput(currency="USD"))
    creates = [key for method, path, key, _ in seen if (method, path) == ("POST", "/v1/payment_intents")]
    assert creates == [charge_id]
    [stored] = ok(api.get(f"/v1/payment_intents/{intent['id']}"))["charges"]
    assert stored["id"] == charge_id and stored["status"] == "Pending"
    payment_id = stored["provider_a_payload"]["client_secret"].split("_secret_")[0]
    at_provider = localstripe.get(f"/v1/payment_intents/{payment_id}", merchant["provider_a"]["secret_key"])
    assert at_provider["metadata"]["paygate_charge_id"] == charge_id
    assert at_provider["metadata"]["paygate_payment_intent_id"] == intent["id"]


def test_a_token_is_attached_and_confirmed_under_keys_made_from_our_charge_id(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        recording_proxy: tuple[str, Seen]) -> None:
    url, seen = recording_proxy
    intent = new_intent(api)
    token = localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS)
    status, [(charge_id, charge_status)] = choose_cards(service, merchant, intent["id"], url,
                                                        pb.FiatPaymentInput(currency="USD", token=token))
    assert status == "Success" and charge_status == "Success"
    keys = [key for method, path, key, _ in seen if method == "POST" and path.startswith("/v1/payment_intents")]
    assert keys == [charge_id, f"{charge_id}-attach", f"{charge_id}-confirm"]


@pytest.fixture
def replaying_proxy(localstripe: LocalStripe) -> Iterator[ProviderProxy]:
    """Answers a key it has seen with its first answer, as Stripe does (and refuses other parameters under it)."""
    with provider_proxy(localstripe.url) as proxy:
        proxy.replays = True
        yield proxy


def test_one_saved_card_pays_two_intents_under_two_keys(service: Service, api: httpx.Client,
                                                         merchant: dict[str, Any], localstripe: LocalStripe,
                                                         replaying_proxy: ProviderProxy) -> None:
    """The key of a saved-card payment names its intent: the same card's first attempt on a second intent is
    another question to the provider, never a replay of the first intent's payment (nor a refusal for 24 h)."""
    ann = customer(api)
    save_a_card(api, merchant, localstripe, ann["id"])
    [card] = saved_methods(api, ann["id"])
    paid = []
    for _ in range(2):
        intent = new_intent(api, amount="3.20", customer=ann["id"])
        status, _ = choose_cards(service, merchant, intent["id"], replaying_proxy.url,
                                 pb.FiatPaymentInput(currency="USD", payment_method_id=card["id"]))
        paid.append(status)
    keys = [key for method, path, key, _ in replaying_proxy.seen if (method, path) == ("POST", "/v1/payment_intents")]
    assert paid == ["Success", "Success"]
    assert len(set(keys)) == 2
