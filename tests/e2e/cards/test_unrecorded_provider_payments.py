"""provider_a's webhook about a payment that no charge of paygate records (DESIGN §9). A crash between the provider's
answer and our commit leaves one (test_crash_before_commit.py); it is rebuilt from the ids in its metadata, once, and
only if it is one paygate could have made: money moved, for an intent of the merchant whose webhook it is, of the
intent's amount and currency. Anything else credits nothing, is acknowledged (the provider sending it again cannot
make it match) and is logged for the operator.

The payments here are made straight at localstripe with the merchant's own provider_a key, as anyone holding that
key can, with the metadata a lost paygate call would have left or a forger would write; the webhook about each is
signed with the merchant's webhook secret and posted to its endpoint, as provider_a sends it.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server.cards.payments import keyed_charge_id
from server.ids import new_id
from tests.conftest import ok
from tests.e2e.cards.support import new_intent, paid_at_provider, provider_event, rows
from tests.e2e.cards.test_card_outcome import post_webhook, signed
from tests.harness import Service, log_lines
from tests.localstripe import LocalStripe


def deliver(service: Service, merchant: dict[str, Any], payment: dict[str, Any]) -> None:
    """provider_a's signed `payment_intent.succeeded` webhook about `payment` (as the provider shows it), to the
    merchant's endpoint: acknowledged."""
    payload = provider_event(payment)
    got = ok(post_webhook(service, merchant["merchant_id"], payload,
                          signed(merchant["provider_a"]["webhook_secret"], payload)))
    assert got == {"received": True}


def succeeded_events(api: httpx.Client, intent_id: str) -> list[dict[str, Any]]:
    events = ok(api.get("/v1/events", params={"page_size": 100, "type": "payment_intent.succeeded"}))["events"]
    return [e for e in events if e["data"]["object"]["id"] == intent_id]


def ids_of(merchant_id: str, intent_id: str) -> dict[str, str]:
    """The metadata paygate puts on a provider payment of the intent's first card attempt."""
    return {"paygate_merchant_id": merchant_id, "paygate_payment_intent_id": intent_id,
            "paygate_charge_id": keyed_charge_id(intent_id, "card-0")}


def recorded(service: Service, payment: dict[str, Any]) -> list[dict[str, Any]]:
    return rows(service, "select id, payment_intent_id from charges where provider_payment_id = :p", p=payment["id"])


def test_a_replayed_webhook_about_an_unrecorded_payment_records_it_once(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd",
                            metadata=ids_of(merchant["merchant_id"], intent["id"]))
    deliver(service, merchant, paid)
    first = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert first["status"] == "Success"
    assert [c["id"] for c in first["charges"]] == [paid["metadata"]["paygate_charge_id"]]
    for _ in range(3):
        deliver(service, merchant, paid)
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}")) == first
    assert len(succeeded_events(api, intent["id"])) == 1


@pytest.mark.parametrize("named_merchant", ["theirs", "ours"])
def test_a_payment_naming_another_merchants_intent_credits_nothing(
        named_merchant: str, service: Service, other_api: httpx.Client, merchant: dict[str, Any],
        other_merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    theirs = new_intent(other_api)
    who = (other_merchant if named_merchant == "theirs" else merchant)["merchant_id"]
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd", metadata=ids_of(who, theirs["id"]))
    deliver(service, merchant, paid)  # signed with our webhook secret, to our endpoint
    seen = ok(other_api.get(f"/v1/payment_intents/{theirs['id']}"))
    assert (seen["status"], seen["charges"]) == ("RequiresPaymentMethod", [])
    assert recorded(service, paid) == []
    assert log_lines(service, provider_payment=paid["id"], level="warning")


def test_a_payment_naming_an_intent_that_does_not_exist_credits_nothing(
        service: Service, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd",
                            metadata=ids_of(merchant["merchant_id"], new_id("pi")))
    deliver(service, merchant, paid)
    assert recorded(service, paid) == []
    assert log_lines(service, provider_payment=paid["id"], level="warning")


@pytest.mark.parametrize(("amount", "currency"), [(1049, "usd"), (1050, "eur")])
def test_a_payment_of_another_amount_than_its_intent_credits_nothing_and_is_logged_as_an_error(
        amount: int, currency: str, service: Service, api: httpx.Client, merchant: dict[str, Any],
        localstripe: LocalStripe) -> None:
    intent = new_intent(api)  # 10.50 USD
    paid = paid_at_provider(localstripe, merchant, amount=amount, currency=currency,
                            metadata=ids_of(merchant["merchant_id"], intent["id"]))
    deliver(service, merchant, paid)
    seen = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert (seen["status"], seen["charges"]) == ("RequiresPaymentMethod", [])
    [logged] = log_lines(service, provider_payment=paid["id"], level="error")
    assert (logged["named_intent"], logged["amount_minor"], logged["currency"]) == (intent["id"], amount, currency)


def test_a_payment_that_took_no_money_is_not_recorded(service: Service, api: httpx.Client, merchant: dict[str, Any],
                                                      localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    opened = paid_at_provider(localstripe, merchant, amount=1050, currency="usd", confirm=False,
                              metadata=ids_of(merchant["merchant_id"], intent["id"]))
    assert opened["status"] == "requires_payment_method"
    deliver(service, merchant, opened)
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["charges"] == []
    assert recorded(service, opened) == []
