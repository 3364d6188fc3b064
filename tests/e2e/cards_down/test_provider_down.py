"""provider_a down: choosing cards answers 503 `service_unavailable` with a message, and changes nothing, so the
same call succeeds once the provider is back."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.cards.support import choose_card, new_intent


def test_choosing_cards_while_the_provider_is_down_answers_503_and_changes_nothing(
        api: httpx.Client, merchant: dict[str, Any]) -> None:
    intent = new_intent(api)
    r = choose_card(api, intent["id"])
    assert r.status_code == 503, r.text
    body = r.json()
    assert body["error_code"] == "service_unavailable" and "try again" in body["msg"]
    assert "Traceback" not in r.text and merchant["provider_a"]["secret_key"] not in r.text
    after = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert after["status"] == "RequiresPaymentMethod" and after["charges"] == []
    assert after["updated"] == intent["updated"]
