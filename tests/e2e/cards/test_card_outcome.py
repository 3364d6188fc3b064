"""A card payment finished on the payer's side (3-D Secure on the page): paygate learns it from provider_a's signed
webhook, or, when the webhook is lost, by asking provider_a when the intent is read."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

import httpx

from server.cards.accounts import READ_THROUGH_SECONDS
from tests.conftest import fails, ok
from tests.e2e.cards.support import THREE_D_SECURE, chose_card, new_intent, wait_for
from tests.harness import TLS, Service
from tests.localstripe import LocalStripe


def awaiting_3ds(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
                 order: str = "") -> tuple[dict[str, Any], str, str]:
    """An intent whose card charge waits for 3-D Secure: (intent, provider PaymentIntent id, its client secret)."""
    intent = new_intent(api, merchant_order_id=order)
    got = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                   THREE_D_SECURE))
    secret = got["charges"][0]["provider_a_payload"]["client_secret"]
    assert got["charges"][0]["provider_a_payload"]["status"] == "requires_action"
    return intent, secret.split("_secret_")[0], secret


def listed(api: httpx.Client, order: str) -> dict[str, Any]:
    """The intent as the list shows it: the list never asks provider_a, so only a webhook can have changed it."""
    [intent] = ok(api.get("/v1/payment_intents", params={"merchant_order_id": order}))["payment_intents"]
    return intent  # type: ignore[no-any-return]


def signed(secret: str, payload: bytes, at: int | None = None) -> str:
    t = int(time.time()) if at is None else at
    return f"t={t},v1={hmac.new(secret.encode(), f'{t}.'.encode() + payload, hashlib.sha256).hexdigest()}"


def event_for(payment_id: str, charge_id: str, type_: str = "payment_intent.succeeded") -> bytes:
    return json.dumps({"id": "evt_test", "object": "event", "type": type_, "data": {"object": {
        "id": payment_id, "object": "payment_intent", "metadata": {"paygate_charge_id": charge_id}}}}).encode()


def post_webhook(service: Service, merchant_id: str, payload: bytes, signature: str) -> httpx.Response:
    return httpx.post(f"{service.http_url}/webhooks/provider_a/{merchant_id}", content=payload,
                      headers={"Stripe-Signature": signature, "Content-Type": "application/json"}, timeout=30,
                      verify=TLS)


def test_a_lost_webhook_is_recovered_by_reading_the_intent(api: httpx.Client, merchant: dict[str, Any],
                                                           localstripe: LocalStripe) -> None:
    intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "lost-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    assert listed(api, "lost-1")["status"] == "RequiresPaymentMethod"  # no webhook reached paygate
    paid = wait_for(api, intent["id"], lambda i: i["status"] == "Success")
    assert paid["charges"][0]["status"] == "Success"
    assert paid["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}


def provider_reads(localstripe: LocalStripe, payment_id: str) -> int:
    """How often paygate asked provider_a about this PaymentIntent (localstripe's access log)."""
    return localstripe.log().count(f"GET /v1/payment_intents/{payment_id} ")


def test_the_read_through_asks_provider_a_at_most_once_per_interval(api: httpx.Client, merchant: dict[str, Any],
                                                                      localstripe: LocalStripe) -> None:
    intent, payment_id, _ = awaiting_3ds(api, merchant, localstripe, "rate-1")
    reads, started = 0, time.monotonic()
    while time.monotonic() - started < 2 * READ_THROUGH_SECONDS + 1:
        seen = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
        assert seen["charges"][0]["status"] == "Pending"
        reads += 1
        time.sleep(0.1)
    elapsed = time.monotonic() - started
    asked = provider_reads(localstripe, payment_id)
    assert reads >= 10 and 1 <= asked <= 1 + int(elapsed // READ_THROUGH_SECONDS), (reads, asked, elapsed)


def test_the_provider_webhook_applies_the_outcome(service: Service, api: httpx.Client, merchant: dict[str, Any],
                                                  localstripe: LocalStripe) -> None:
    localstripe.register_webhook(f"{service.http_url}/webhooks/provider_a/{merchant['merchant_id']}",
                                 merchant["provider_a"]["webhook_secret"])
    intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "hook-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    deadline = time.monotonic() + 20
    while (seen := listed(api, "hook-1"))["status"] != "Success":
        assert time.monotonic() < deadline, "the provider's webhook never changed the intent"
        time.sleep(0.3)
    [charge] = seen["charges"]
    assert charge["status"] == "Success" and charge["paid"] and charge["provider_a_payload"]["status"] == "succeeded"
    assert seen["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}
    assert provider_reads(localstripe, payment_id) >= 1  # the webhook's body was not trusted: the payment read back
    events = ok(api.get("/v1/events", params={"page_size": 100, "type": "payment_intent.succeeded"}))["events"]
    [succeeded] = [e for e in events if e["data"]["object"]["id"] == intent["id"]]
    assert succeeded["data"]["object"]["merchant_order_id"] == "hook-1"


def test_a_lost_webhook_is_recovered_by_the_checkout_read(api: httpx.Client, anonymous: httpx.Client,
                                                          merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    # What the hosted page polls every 3 s (public key + client secret) asks provider_a too.
    intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "lost-checkout-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    assert listed(api, "lost-checkout-1")["status"] == "RequiresPaymentMethod"  # no webhook reached paygate
    deadline = time.monotonic() + 20
    while (seen := ok(anonymous.post(f"/payment_intents/link/{intent['id']}", json={
            "key": merchant["test"]["public_key"], "client_secret": intent["client_secret"]})))["status"] != "Success":
        assert time.monotonic() < deadline, f"the checkout read never learned the outcome: {seen}"
        time.sleep(0.5)
    assert seen["charges"][0]["status"] == "Success"
    assert listed(api, "lost-checkout-1")["status"] == "Success"  # stored, not only answered


def test_a_webhook_with_a_bad_signature_changes_nothing(service: Service, api: httpx.Client,
                                                        merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    _intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "forged-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    charge_id = listed(api, "forged-1")["charges"][0]["id"]
    payload = event_for(payment_id, charge_id)
    fails(post_webhook(service, merchant["merchant_id"], payload, signed("whsec_wrong", payload)), 400,
          "parameter_invalid", "Stripe-Signature")
    fails(post_webhook(service, merchant["merchant_id"], payload, ""), 400, "parameter_invalid", "Stripe-Signature")
    assert listed(api, "forged-1")["status"] == "RequiresPaymentMethod"


def test_a_stale_webhook_changes_nothing(service: Service, api: httpx.Client, merchant: dict[str, Any],
                                         localstripe: LocalStripe) -> None:
    _intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "stale-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    payload = event_for(payment_id, listed(api, "stale-1")["charges"][0]["id"])
    stale = signed(merchant["provider_a"]["webhook_secret"], payload, at=int(time.time()) - 3600)
    fails(post_webhook(service, merchant["merchant_id"], payload, stale), 400, "parameter_invalid",
          "Stripe-Signature")
    assert listed(api, "stale-1")["status"] == "RequiresPaymentMethod"


def test_a_replayed_webhook_is_harmless(service: Service, api: httpx.Client, merchant: dict[str, Any],
                                        localstripe: LocalStripe) -> None:
    intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "replay-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    payload = event_for(payment_id, listed(api, "replay-1")["charges"][0]["id"])
    for _ in range(3):
        got = ok(post_webhook(service, merchant["merchant_id"], payload,
                              signed(merchant["provider_a"]["webhook_secret"], payload)))
        assert got == {"received": True}
    assert listed(api, "replay-1")["status"] == "Success"
    events = ok(api.get("/v1/events", params={"page_size": 100, "type": "payment_intent.succeeded"}))["events"]
    assert [e["data"]["object"]["id"] for e in events] == [intent["id"]]


def test_another_merchants_webhook_secret_does_not_verify(service: Service, api: httpx.Client,
                                                          merchant: dict[str, Any], other_merchant: dict[str, Any],
                                                          localstripe: LocalStripe) -> None:
    _intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "cross-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret)
    payload = event_for(payment_id, listed(api, "cross-1")["charges"][0]["id"])
    # Signed for the other merchant and posted to its URL: verified, but not its charge, so ignored.
    ok(post_webhook(service, other_merchant["merchant_id"], payload,
                    signed(other_merchant["provider_a"]["webhook_secret"], payload)))
    assert listed(api, "cross-1")["status"] == "RequiresPaymentMethod"


def test_a_failed_3ds_authentication_fails_the_charge(api: httpx.Client, merchant: dict[str, Any],
                                                      localstripe: LocalStripe) -> None:
    intent, payment_id, secret = awaiting_3ds(api, merchant, localstripe, "3ds-fail-1")
    localstripe.authenticate(merchant["provider_a"]["publishable_key"], payment_id, secret, success=False)
    failed = wait_for(api, intent["id"], lambda i: i["charges"][0]["status"] == "Failed")
    assert failed["status"] == "RequiresPaymentMethod"
    assert failed["charges"][0]["failure_code"] == "payment_intent_authentication_failure"


def test_canceling_the_intent_cancels_its_pending_card_payment(api: httpx.Client, merchant: dict[str, Any],
                                                               localstripe: LocalStripe) -> None:
    intent, payment_id, _ = awaiting_3ds(api, merchant, localstripe, "cancel-1")
    ok(api.post(f"/v1/payment_intents/{intent['id']}/cancel", json={}))
    at_provider = localstripe.get(f"/v1/payment_intents/{payment_id}", merchant["provider_a"]["secret_key"])
    assert at_provider["status"] == "canceled"  # 3-D Secure can no longer finish it
    canceled = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert canceled["status"] == "Canceled"
    assert canceled["charges"][0]["status"] == "Failed" and canceled["charges"][0]["failure_code"] == "canceled"
    failed = ok(api.get("/v1/events", params={"page_size": 100, "type": "payment_intent.payment_failed"}))["events"]
    assert failed == []


def test_expiry_cancels_its_pending_card_payment(api: httpx.Client, merchant: dict[str, Any],
                                                 localstripe: LocalStripe) -> None:
    # The payer must not be able to finish 3-D Secure on an intent that expired: the scheduler's expiry cancels the
    # provider payment too, as the merchant's cancel call does.
    intent = new_intent(api, expires_in=3)
    got = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                   THREE_D_SECURE))
    payment_id = got["charges"][0]["provider_a_payload"]["client_secret"].split("_secret_")[0]
    expired = wait_for(api, intent["id"], lambda i: i["status"] == "Canceled"
                       and i["charges"][0]["status"] == "Failed", seconds=30)
    assert expired["cancellation_reason"] == "expired" and expired["charges"][0]["failure_code"] == "canceled"
    at_provider = localstripe.get(f"/v1/payment_intents/{payment_id}", merchant["provider_a"]["secret_key"])
    assert at_provider["status"] == "canceled"
