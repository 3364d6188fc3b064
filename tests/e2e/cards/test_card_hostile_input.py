"""Hostile input on the card paths: tokens that are not provider_a's, amounts provider_a cannot take, webhooks that
name another merchant's payment or carry an odd body. Each is refused with a clear error, or ignored, and changes
nothing."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.cards.support import choose_card, new_intent
from tests.e2e.cards.test_card_outcome import awaiting_3ds, listed, post_webhook, signed
from tests.harness import TLS, Service
from tests.localstripe import LocalStripe

TOKEN = "payment_method_options.fiat.token"


def unchanged(api: httpx.Client, intent: dict[str, Any]) -> None:
    after = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert after["status"] == "RequiresPaymentMethod" and after["charges"] == []
    assert after["updated"] == intent["updated"]


def test_an_unknown_card_token_is_refused_and_changes_nothing(api: httpx.Client, merchant: dict[str, Any],
                                                              localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    fails(choose_card(api, intent["id"], token="tok_" + "0" * 24), 400, "parameter_invalid", TOKEN)
    unchanged(api, intent)


def test_a_token_with_characters_no_provider_id_has_is_refused(api: httpx.Client, merchant: dict[str, Any],
                                                               localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    for token in ("tok_é1", "tok_", "tok_a b", "tok_" + "a" * 300, "tok_../../v1/customers"):
        fails(choose_card(api, intent["id"], token=token), 400, "parameter_invalid", TOKEN)
    unchanged(api, intent)


def test_an_amount_above_what_provider_a_takes_is_refused_and_changes_nothing(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    # provider_a takes at most eight digits of minor units (999,999.99 USD); the largest intent paygate allows is
    # 18 integer digits. Sent as is, the provider would refuse it (or localstripe take it), and a retry never helps.
    for amount in ("1000000", "999999999999999999"):
        intent = new_intent(api, amount=amount)
        got = fails(choose_card(api, intent["id"]), 400, "parameter_invalid", "payment_method_type")
        assert "999999.99 USD" in got["msg"]
        unchanged(api, intent)
    largest = new_intent(api, amount="999999.99")
    [charge] = ok(choose_card(api, largest["id"]))["payment_intents"][0]["charges"]
    assert charge["status"] == "Pending"


def test_a_signed_webhook_naming_another_merchants_charge_changes_nothing(
        service: Service, api: httpx.Client, merchant: dict[str, Any], other_merchant: dict[str, Any],
        localstripe: LocalStripe) -> None:
    # The other merchant signs (with its own secret, at its own URL) an event that names this merchant's charge and
    # provider PaymentIntent, paid at the provider but not yet known to paygate: ignored, since the charge is not its.
    _intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "foreign-hook-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    charge_id = listed(api, "foreign-hook-1")["charges"][0]["id"]
    payload = json.dumps({"id": "evt_x", "object": "event", "type": "payment_intent.succeeded", "data": {"object": {
        "id": payment_id, "object": "payment_intent",
        "metadata": {"paygate_charge_id": charge_id, "paygate_merchant_id": other_merchant["merchant_id"]}}}}).encode()
    got = ok(post_webhook(service, other_merchant["merchant_id"], payload,
                          signed(other_merchant["provider_a"]["webhook_secret"], payload)))
    assert got == {"received": True}
    assert listed(api, "foreign-hook-1")["status"] == "RequiresPaymentMethod"
    # ... and this merchant's URL does not take the other merchant's signature.
    fails(post_webhook(service, merchant["merchant_id"], payload,
                       signed(other_merchant["provider_a"]["webhook_secret"], payload)), 400, "parameter_invalid",
          "Stripe-Signature")
    assert listed(api, "foreign-hook-1")["status"] == "RequiresPaymentMethod"


def test_a_signed_webhook_of_an_odd_shape_is_acknowledged_and_ignored(service: Service, merchant: dict[str, Any],
                                                                     localstripe: LocalStripe) -> None:
    whsec = merchant["provider_a"]["webhook_secret"]
    bodies: list[Any] = [
        {"type": "payment_intent.succeeded", "data": "x"},
        {"type": "payment_intent.succeeded", "data": {"object": ["pi_1"]}},
        {"type": "payment_intent.succeeded", "data": {"object": {"id": "pi_1", "metadata": ["ch_1"]}}},
        {"type": "payment_intent.succeeded", "data": {"object": {"id": {"x": 1}, "metadata": {"paygate_charge_id":
                                                                                            ["ch_1"]}}}},
        {"type": ["payment_intent.succeeded"]},
        {"type": "payment_intent.succeeded"},
    ]
    for body in bodies:
        payload = json.dumps(body).encode()
        assert ok(post_webhook(service, merchant["merchant_id"], payload, signed(whsec, payload))) == \
            {"received": True}, body
    for payload in (b"[1, 2]", b"\"event\"", b"{\"type\": \"payment_intent.succeeded\""):
        fails(post_webhook(service, merchant["merchant_id"], payload, signed(whsec, payload)), 400,
              "parameter_invalid", "Stripe-Signature")


def test_a_webhook_for_an_unknown_or_malformed_merchant_is_refused(service: Service, merchant: dict[str, Any],
                                                                   localstripe: LocalStripe) -> None:
    payload = b"{\"type\": \"payment_intent.succeeded\"}"
    signature = signed(merchant["provider_a"]["webhook_secret"], payload)
    for merchant_id in ("mch_" + "0" * 24, "mch_%C3%A9", "x" * 300):
        fails(post_webhook(service, merchant_id, payload, signature), 400, "parameter_invalid", "Stripe-Signature")


def test_a_webhook_for_a_provider_paygate_has_no_rail_for_is_not_found(service: Service, merchant: dict[str, Any],
                                                                       localstripe: LocalStripe) -> None:
    payload = b"{\"type\": \"payment_intent.succeeded\"}"
    signature = signed(merchant["provider_a"]["webhook_secret"], payload)
    for provider in ("provider_z", "PROVIDER_A", "provider_a%00"):
        got = httpx.post(f"{service.http_url}/webhooks/{provider}/{merchant['merchant_id']}", content=payload,
                         headers={"Stripe-Signature": signature}, timeout=30, verify=TLS)
        assert provider.split("%")[0] in fails(got, 404, "card_provider_not_found")["msg"]


def test_a_webhook_carries_no_credential_past_the_facade(service: Service, merchant: dict[str, Any],
                                                         localstripe: LocalStripe) -> None:
    """The signature is the only proof a webhook has: an API key beside it neither helps nor is accepted as one."""
    payload = b"{\"type\": \"payment_intent.succeeded\"}"
    got = httpx.post(f"{service.http_url}/webhooks/provider_a/{merchant['merchant_id']}", content=payload,
                     headers={"Authorization": f"Bearer {merchant['test']['secret_key']}"}, timeout=30, verify=TLS)
    fails(got, 400, "parameter_invalid", "Stripe-Signature")
