"""Card payments through provider_a (localstripe): a card charge, the token confirmed server-side, declines, 3-D
Secure passed through, and the hosted checkout's update call."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.cards.support import DECLINED, SUCCEEDS, THREE_D_SECURE, choose_card, chose_card, new_intent
from tests.harness import TLS
from tests.localstripe import LocalStripe


def events_of(api: httpx.Client, type_: str) -> list[dict[str, Any]]:
    return ok(api.get("/v1/events", params={"page_size": 100, "type": type_}))["events"]  # type: ignore


def test_choosing_cards_opens_a_pending_provider_a_charge(api: httpx.Client, merchant: dict[str, Any],
                                                          localstripe: LocalStripe) -> None:
    intent = new_intent(api, merchant_order_id="order-7")
    got = chose_card(api, intent["id"])
    [charge] = got["charges"]
    assert charge["payment_provider"] == "provider_a" and charge["payment_method_type"] == "cards"
    assert charge["status"] == "Pending" and charge["amount"] == {"asset_id": "USD", "amount": "10.5"}
    payload = charge["provider_a_payload"]
    assert payload["public_key"] == merchant["provider_a"]["publishable_key"]
    assert payload["status"] == "requires_payment_method" and "_secret_" in payload["client_secret"]
    assert got["payment_method_type"] == "cards" and got["status"] == "RequiresPaymentMethod"
    provider_pi = localstripe.get(f"/v1/payment_intents/{payload['client_secret'].split('_secret_')[0]}",
                                  merchant["provider_a"]["secret_key"])
    assert provider_pi["amount"] == 1050 and provider_pi["currency"] == "usd"
    assert provider_pi["metadata"]["paygate_payment_intent_id"] == intent["id"]
    assert provider_pi["metadata"]["paygate_charge_id"] == charge["id"]
    # Chosen again before any card was given, the same attempt stands.
    assert chose_card(api, intent["id"])["charges"] == got["charges"]


def test_a_tokenized_card_pays_the_intent(api: httpx.Client, merchant: dict[str, Any],
                                          localstripe: LocalStripe) -> None:
    intent = new_intent(api, merchant_order_id="order-8")
    token = localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS)
    got = chose_card(api, intent["id"], token=token)
    assert got["status"] == "Success"
    [charge] = got["charges"]
    assert charge["status"] == "Success" and charge["paid"] and charge["provider_a_payload"]["status"] == "succeeded"
    assert got["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}
    [succeeded] = [e for e in events_of(api, "payment_intent.succeeded") if e["data"]["object"]["id"] == intent["id"]]
    assert succeeded["data"]["object"]["merchant_order_id"] == "order-8"


def test_a_declined_card_fails_the_charge_and_a_new_try_pays(api: httpx.Client, merchant: dict[str, Any],
                                                             localstripe: LocalStripe) -> None:
    pk = merchant["provider_a"]["publishable_key"]
    intent = new_intent(api)
    got = chose_card(api, intent["id"], token=localstripe.tokenize(pk, DECLINED))
    [charge] = got["charges"]
    assert charge["status"] == "Failed" and charge["failure_code"] == "card_declined" and charge["failure_message"]
    assert got["status"] == "RequiresPaymentMethod"
    assert [e["data"]["object"]["id"] for e in events_of(api, "payment_intent.payment_failed")] == [intent["id"]]
    again = chose_card(api, intent["id"], token=localstripe.tokenize(pk, SUCCEEDS))
    assert [c["status"] for c in again["charges"]] == ["Failed", "Success"] and again["status"] == "Success"
    assert again["charges"][0]["provider_a_payload"]["client_secret"] != \
        again["charges"][1]["provider_a_payload"]["client_secret"]  # a new provider PaymentIntent


def test_three_d_secure_passes_requires_action_through(api: httpx.Client, merchant: dict[str, Any],
                                                       localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    got = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                   THREE_D_SECURE))
    [charge] = got["charges"]
    assert charge["status"] == "Pending" and charge["provider_a_payload"]["status"] == "requires_action"
    assert got["status"] == "RequiresPaymentMethod"


def test_cards_need_a_fiat_priced_intent(api: httpx.Client) -> None:
    intent = new_intent(api, amount="5", currency="USDT-ETH-TEST")
    fails(choose_card(api, intent["id"]), 400, "parameter_invalid", "payment_method_type")


def test_cards_pay_in_the_intents_currency(api: httpx.Client) -> None:
    intent = new_intent(api)
    fails(api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "cards", "payment_method_options": {"fiat": {"currency": "EUR"}}}),
        400, "parameter_invalid", "payment_method_options.fiat.currency")


def test_a_malformed_token_is_refused(api: httpx.Client) -> None:
    intent = new_intent(api)
    fails(choose_card(api, intent["id"], token="4242424242424242"), 400, "parameter_invalid",
          "payment_method_options.fiat.token")


def test_a_merchant_without_provider_keys_gets_400(service: Any, localstripe: LocalStripe) -> None:
    bare = service.create_merchant("No cards")
    with httpx.Client(base_url=service.http_url, auth=(bare["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as client:
        intent = new_intent(client)
        fails(choose_card(client, intent["id"]), 400, "parameter_invalid", "payment_method_type")


def test_the_checkout_update_call_pays_with_a_token(anonymous: httpx.Client, api: httpx.Client,
                                                    merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    token = localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS)
    got = ok(anonymous.post(f"/payment_intents/link/{intent['id']}/update", json={
        "key": merchant["test"]["public_key"], "client_secret": intent["client_secret"],
        "payment_method_type": "cards", "payment_method_options": {"fiat": {"currency": "USD", "token": token}}}))
    assert got["status"] == "Success" and got["charges"][0]["status"] == "Success"
    assert got["charges"][0]["provider_a_payload"]["public_key"] == merchant["provider_a"]["publishable_key"]
