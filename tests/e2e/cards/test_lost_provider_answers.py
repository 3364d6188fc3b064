"""A card confirmation whose answer is lost never loses the payment nor charges the card twice (DESIGN §9).

A proxy on loopback (tests/e2e/cards/provider_proxy.py) stands between paygate's provider_a client and localstripe
and breaks the confirmation: either it forwards it (localstripe charges the card) and answers 502, as a provider
answering after our time-out would, or it answers 502 without forwarding (the provider never saw it). The choice of
cards runs in-process with provider_a at the proxy (`choose_cards`); everything after it goes through the running
service, which talks to localstripe directly, so its read-through sees what localstripe did.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from paygate.v1 import payment_intents_pb2 as pb

from server.boot.composition import build_runtime
from server.cards import outcome
from server.cards.payments import LOST_CONFIRMATION, UNCONFIRMED, keyed_charge_id
from server.config import load_settings
from server.db import Database
from server.rails.provider_a import ProviderARail
from tests.clock import SetClock
from tests.conftest import ok
from tests.e2e.cards.provider_proxy import ANSWER_LOST, NEVER_SENT, PASS, ProviderProxy, provider_proxy
from tests.e2e.cards.support import SUCCEEDS, choose_card, chose_card, new_intent, poll, rows, wait_for
from tests.e2e.cards.test_charge_saved_card import renew
from tests.e2e.cards.test_provider_idempotency import choose_cards
from tests.harness import Service
from tests.localstripe import LocalStripe


@pytest.fixture
def proxy(localstripe: LocalStripe) -> Iterator[ProviderProxy]:
    with provider_proxy(localstripe.url) as running:
        yield running


def _at_provider(localstripe: LocalStripe, merchant: dict[str, Any], intent_id: str) -> list[tuple[str, str]]:
    """(status, amount) of every provider PaymentIntent made for our intent."""
    # localstripe lists oldest first and knows no maximum page size: one page holds every payment of the session.
    listed = localstripe.get("/v1/payment_intents?limit=1000000", merchant["provider_a"]["secret_key"])["data"]
    return [(p["status"], p["amount"]) for p in listed if p["metadata"].get("paygate_payment_intent_id") == intent_id]


def _token(localstripe: LocalStripe, merchant: dict[str, Any]) -> str:
    return localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS)


def _confirmation_broken(mode: str, service: Service, api: httpx.Client, merchant: dict[str, Any],
                         localstripe: LocalStripe, proxy: ProviderProxy) -> tuple[dict[str, Any], str, str]:
    """A new intent whose card confirmation the proxy breaks (`mode`): (the intent as created, its status after the
    choice of cards, the charge's id)."""
    proxy.breaks = lambda method, path: mode if method == "POST" and path.endswith("/confirm") else PASS
    intent = new_intent(api)
    status, [(charge_id, _)] = choose_cards(service, merchant, intent["id"], proxy.url,
                                            pb.FiatPaymentInput(currency="USD", token=_token(localstripe, merchant)))
    return intent, status, charge_id


def test_a_lost_confirmation_answer_keeps_the_charge_and_the_intent_processing(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, status, charge_id = _confirmation_broken(ANSWER_LOST, service, api, merchant, localstripe, proxy)
    assert status == "Processing"
    [row] = rows(service, "select status, provider_status, provider_payment_id from charges where id = :c",
                 c=charge_id)
    assert (row["status"], row["provider_status"]) == ("Pending", UNCONFIRMED) and row["provider_payment_id"]
    assert _at_provider(localstripe, merchant, intent["id"]) == [("succeeded", 1050)]


def test_the_read_through_records_the_payment_whose_answer_was_lost(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, _, _ = _confirmation_broken(ANSWER_LOST, service, api, merchant, localstripe, proxy)
    paid = wait_for(api, intent["id"], lambda i: i["status"] == "Success")
    assert paid["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}
    assert [c["status"] for c in paid["charges"]] == ["Success"]


def test_a_retry_while_the_answer_is_lost_charges_the_card_no_second_time(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, _, _ = _confirmation_broken(ANSWER_LOST, service, api, merchant, localstripe, proxy)
    again = choose_card(api, intent["id"], token=_token(localstripe, merchant))
    assert again.status_code == 409
    assert again.json()["error_code"] == "payment_intent_unexpected_state"
    assert _at_provider(localstripe, merchant, intent["id"]) == [("succeeded", 1050)]
    assert len(rows(service, "select id from charges where payment_intent_id = :i", i=intent["id"])) == 1


def test_a_confirmation_the_provider_never_received_is_canceled_there_and_the_attempt_fails(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, status, _ = _confirmation_broken(NEVER_SENT, service, api, merchant, localstripe, proxy)
    assert status == "Processing"
    failed = wait_for(api, intent["id"], lambda i: i["status"] == "RequiresPaymentMethod")
    [charge] = failed["charges"]
    assert (charge["status"], charge["failure_code"]) == ("Failed", LOST_CONFIRMATION[0])
    assert [s for s, _ in _at_provider(localstripe, merchant, intent["id"])] == ["canceled"]


def test_a_confirmation_that_never_arrived_is_settled_even_if_nobody_reads_the_intent(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    _, _, charge_id = _confirmation_broken(NEVER_SENT, service, api, merchant, localstripe, proxy)

    def stored() -> dict[str, Any]:
        # The database, not the API (a read through the API would ask the provider), in one statement: two reads
        # could see the charge before the settling commit and the intent after it.
        [row] = rows(service, "select c.status, c.failure_code, i.status as intent from charges c"
                              " join payment_intents i on i.id = c.payment_intent_id where c.id = :c", c=charge_id)
        return {"charge": (row["status"], row["failure_code"]), "intent": row["intent"]}

    assert poll(stored, lambda seen: seen["intent"] != "Processing") == {
        "charge": ("Failed", LOST_CONFIRMATION[0]), "intent": "RequiresPaymentMethod"}


def test_after_a_confirmation_that_never_arrived_the_payer_pays_once(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, _, _ = _confirmation_broken(NEVER_SENT, service, api, merchant, localstripe, proxy)
    wait_for(api, intent["id"], lambda i: i["status"] == "RequiresPaymentMethod")
    paid = chose_card(api, intent["id"], token=_token(localstripe, merchant))
    assert paid["status"] == "Success"
    assert sorted(_at_provider(localstripe, merchant, intent["id"])) == [("canceled", 1050), ("succeeded", 1050)]


def test_an_off_session_charge_whose_answer_was_lost_is_asked_again_under_the_same_key_once_its_window_passed(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    # localstripe ignores idempotency keys; the proxy keeps them as Stripe documents (`replays`), so what is checked
    # here is that the second ask is the first one's request under its key, answered with the first's payment.
    ann = ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))
    first = new_intent(api, customer=ann["id"])
    chose_card(api, first["id"], save_payment_method=True, token=_token(localstripe, merchant))
    [pm] = ok(api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]}))["payment_methods"]
    renewal = new_intent(api, amount="7", customer=ann["id"])
    proxy.replays = True
    proxy.breaks = lambda method, path: ANSWER_LOST if (method, path) == ("POST", "/v1/payment_intents") else PASS
    charges = renew(service, renewal["id"], pm["id"], "inv_1-attempt-1", api_base=proxy.url)
    assert [s for _, s in charges] == ["Pending"]  # the card may be charged: the charge stays, out at the provider

    def creates() -> list[tuple[str, dict[str, list[str]]]]:
        return [(key, form) for method, path, key, form in proxy.seen
                if (method, path) == ("POST", "/v1/payment_intents")]

    assert len(creates()) == 2  # the call and the client's one retry, both answers lost
    assert renew(service, renewal["id"], pm["id"], "inv_1-attempt-1", api_base=proxy.url) == charges
    assert len(creates()) == 2  # a renewal retried under the same key while the first is out asks nothing
    proxy.breaks = lambda method, path: PASS
    ask_unconfirmed_at(service, proxy.url, time.time() + 46)  # past the 45 s window
    asked = creates()
    assert len(asked) == 3 and all(c == asked[0] for c in asked)
    assert asked[0][0] == "inv_1-attempt-1"
    assert asked[0][1]["metadata[paygate_charge_id]"] == [keyed_charge_id(renewal["id"], "inv_1-attempt-1")]
    paid = wait_for(api, renewal["id"], lambda i: i["status"] == "Success")
    assert [c["status"] for c in paid["charges"]] == ["Success"]
    assert _at_provider(localstripe, merchant, renewal["id"]) == [("succeeded", 700)]


def ask_unconfirmed_at(service: Service, api_base: str, at: float) -> None:
    """The scheduler's pass over card payments out at the provider, run in-process at time `at` (provider_a at
    `api_base`)."""
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})

    async def run() -> None:
        db = Database(settings.database_url, clock=SetClock(int(at)))
        rt = build_runtime(settings, db=db, var_dir=service.workdir)
        rt = dataclasses.replace(rt, cards=dataclasses.replace(rt.cards, rails={"provider_a": ProviderARail(api_base)}))
        try:
            await outcome.ask_unconfirmed(db, rt, rt.cards)
        finally:
            await db.close()

    asyncio.run(run())
