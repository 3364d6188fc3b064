"""One intent, one card payment: a new card attempt first cancels the intent's earlier attempts still open at the
provider (a 3-D Secure page left open, a saved card's payment awaiting the payer), so finishing one later cannot
charge the payer twice; a refund names what it pays back, the intent's payment or money that is not the payment."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.cards.support import SUCCEEDS, THREE_D_SECURE, chose_card, new_intent, refund_ends
from tests.e2e.cards.test_card_refunds import paid_by_card, provider_refunds
from tests.localstripe import LocalStripe


def provider_payment(localstripe: LocalStripe, merchant: dict[str, Any], charge: dict[str, Any]) -> dict[str, Any]:
    payment_id = charge["provider_a_payload"]["client_secret"].split("_secret_")[0]
    return localstripe.get(f"/v1/payment_intents/{payment_id}", merchant["provider_a"]["secret_key"])


def test_a_new_card_attempt_cancels_the_open_3d_secure_one_at_the_provider(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    key = merchant["provider_a"]["publishable_key"]
    intent = new_intent(api, amount="10.50")
    first = chose_card(api, intent["id"], token=localstripe.tokenize(key, THREE_D_SECURE))["charges"][0]
    assert first["provider_a_payload"]["status"] == "requires_action"
    paid = chose_card(api, intent["id"], token=localstripe.tokenize(key, SUCCEEDS))
    assert paid["status"] == "Success"
    assert (paid["charges"][0]["id"], paid["charges"][0]["status"]) == (first["id"], "Failed")
    assert provider_payment(localstripe, merchant, first)["status"] == "canceled"
    assert paid["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}


def test_the_3d_secure_page_of_a_withdrawn_attempt_charges_nothing(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    key = merchant["provider_a"]["publishable_key"]
    intent = new_intent(api, amount="10.50")
    first = chose_card(api, intent["id"], token=localstripe.tokenize(key, THREE_D_SECURE))["charges"][0]
    chose_card(api, intent["id"], token=localstripe.tokenize(key, SUCCEEDS))
    secret = first["provider_a_payload"]["client_secret"]
    finished = httpx.post(f"{localstripe.url}/v1/payment_intents/{secret.split('_secret_')[0]}/_authenticate",
                          data={"key": key, "client_secret": secret, "success": "true"}, timeout=10)
    assert finished.status_code != 200 or finished.json()["status"] != "succeeded"
    after = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert Decimal(after["payment_details"]["amount_captured"]["amount"]) == Decimal("10.5")
    assert [c["status"] for c in after["charges"]] == ["Failed", "Success"]


def test_a_refund_naming_a_crypto_asset_on_a_card_paid_intent_never_refunds_the_card(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    fails(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "10.50",
                                        "asset_id": "USDT-ETH-TEST"}), 400, "parameter_invalid", "asset_id")
    assert ok(api.get("/v1/refunds", params={"payment_intent": intent["id"]}))["refunds"] == []
    assert provider_refunds(localstripe, merchant, intent) == []


def test_a_refund_naming_the_card_currency_refunds_the_card(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    [made] = ok(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "4",
                                              "asset_id": "USD"}))["refunds"]
    assert refund_ends(api, made["id"])["amount"] == {"asset_id": "USD", "amount": "4"}
    assert provider_refunds(localstripe, merchant, intent) == [400]
