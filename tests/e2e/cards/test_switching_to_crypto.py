"""One payment at a time: choosing crypto on an intent with an open card payment cancels that payment at the card
provider first, so the card cannot be charged as well (3-D Secure finished later, or a page confirming a charge it
opened); a card payment that succeeded meanwhile pays the intent instead, and crypto is then refused."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server.cards.payments import WITHDRAWN
from tests.conftest import ok
from tests.e2e.cards.support import wait_for
from tests.e2e.cards.test_card_outcome import awaiting_3ds
from tests.localstripe import LocalStripe

ETH = "ETH-ETH-TEST"


def choose_crypto(api: httpx.Client, intent_id: str) -> httpx.Response:
    return api.post(f"/v1/payment_intents/{intent_id}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": ETH}}})


def provider_status(localstripe: LocalStripe, merchant: dict[str, Any], payment_id: str) -> str:
    return str(localstripe.get(f"/v1/payment_intents/{payment_id}", merchant["provider_a"]["secret_key"])["status"])


def test_choosing_crypto_cancels_a_card_payment_waiting_for_3d_secure(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent, payment_id, _ = awaiting_3ds(api, merchant, localstripe)
    [chosen] = ok(choose_crypto(api, intent["id"]))["payment_intents"]
    card, crypto = chosen["charges"][0], chosen["charges"][-1]
    assert (card["status"], card["failure_code"]) == ("Failed", WITHDRAWN[0])
    assert crypto["status"] == "Pending" and crypto["amount"]["asset_id"] == ETH
    assert provider_status(localstripe, merchant, payment_id) == "canceled"


def test_3d_secure_finished_after_choosing_crypto_charges_the_card_nothing(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe)
    ok(choose_crypto(api, intent["id"]))
    with pytest.raises(AssertionError):
        localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    assert provider_status(localstripe, merchant, payment_id) == "canceled"
    seen = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert seen["status"] == "RequiresPaymentMethod" and seen["charges"][0]["status"] == "Failed"


def test_a_card_payment_finished_before_choosing_crypto_pays_the_intent_and_crypto_is_refused(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe)
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    refused = choose_crypto(api, intent["id"])
    assert refused.status_code == 409 and refused.json()["error_code"] == "payment_intent_unexpected_state"
    paid = wait_for(api, intent["id"], lambda i: i["status"] == "Success")
    assert [c["amount"]["asset_id"] for c in paid["charges"]] == ["USD"]
    assert provider_status(localstripe, merchant, payment_id) == "succeeded"
