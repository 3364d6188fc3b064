"""Card refunds through provider_a: partial, several, never above what was captured, one of 20 concurrent full
refunds accepted, the states and events of crypto refunds: the create call answers the refund Pending (one entry),
and provider_a is asked after the answer, which takes it to Success."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.cards.support import SUCCEEDS, chose_card, new_intent, refund_ends, wait_for
from tests.harness import TLS, Service
from tests.localstripe import LocalStripe


def paid_by_card(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
                 amount: str = "10.50") -> dict[str, Any]:
    intent = new_intent(api, amount=amount)
    got = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                   SUCCEEDS))
    assert got["status"] == "Success"
    return got


def refund(api: httpx.Client, intent_id: str, amount: str) -> httpx.Response:
    return api.post("/v1/refunds", json={"payment_intent_id": intent_id, "amount": amount})


def created(api: httpx.Client, intent_id: str, amount: str) -> dict[str, Any]:
    """The create call's answer: one refund, Pending (the spec's `POST /v1/refunds`)."""
    [made] = ok(refund(api, intent_id, amount))["refunds"]
    assert made["status"] == "Pending" and made["amount"]["asset_id"] == "USD", made
    assert Decimal(made["amount"]["amount"]) == Decimal(amount), made
    return made


def provider_refunds(localstripe: LocalStripe, merchant: dict[str, Any], intent: dict[str, Any]) -> list[int]:
    provider_pi = intent["charges"][0]["provider_a_payload"]["client_secret"].split("_secret_")[0]
    at_provider = localstripe.get(f"/v1/refunds?payment_intent={provider_pi}", merchant["provider_a"]["secret_key"])
    return [r["amount"] for r in at_provider["data"]]


def test_a_partial_then_a_full_card_refund(api: httpx.Client, merchant: dict[str, Any],
                                           localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    first = created(api, intent["id"], "4")
    assert first["charge"] == intent["charges"][0]["id"]
    assert refund_ends(api, first["id"])["amount"] == {"asset_id": "USD", "amount": "4"}
    assert provider_refunds(localstripe, merchant, intent) == [400]
    middle = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert middle["status"] == "Success"
    assert middle["payment_details"]["amount_refunded"] == {"asset_id": "USD", "amount": "4"}
    refund_ends(api, created(api, intent["id"], "6.50")["id"])
    done = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert done["status"] == "Refunded" and done["charges"][0]["refunded"] is True
    assert [r["status"] for r in done["charges"][0]["refunds"]] == ["Success", "Success"]
    assert sorted(provider_refunds(localstripe, merchant, intent)) == [400, 650]
    fails(refund(api, intent["id"], "0.01"), 400, "invalid_payment_intent", "payment_intent_id")


def test_a_card_refund_never_exceeds_what_was_captured(api: httpx.Client, merchant: dict[str, Any],
                                                       localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    fails(refund(api, intent["id"], "10.51"), 400, "refund_amount_exceeded", "amount")
    made = created(api, intent["id"], "10")
    fails(refund(api, intent["id"], "0.51"), 400, "refund_amount_exceeded", "amount")  # Pending, its amount held
    fails(refund(api, intent["id"], "0.001"), 400, "parameter_invalid", "amount")
    refund_ends(api, made["id"])
    fails(refund(api, intent["id"], "0.51"), 400, "refund_amount_exceeded", "amount")  # and so does a successful one


def test_several_partial_card_refunds_add_up(api: httpx.Client, merchant: dict[str, Any],
                                             localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe, amount="9")
    made = [created(api, intent["id"], "3") for _ in range(3)]
    for one in made:
        refund_ends(api, one["id"])
    done = wait_for(api, intent["id"], lambda i: i["status"] == "Refunded")
    assert done["payment_details"]["amount_refunded"] == {"asset_id": "USD", "amount": "9"}
    assert provider_refunds(localstripe, merchant, intent) == [300, 300, 300]


def test_card_refunds_record_the_refund_events(api: httpx.Client, merchant: dict[str, Any],
                                               localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    made = created(api, intent["id"], "1")
    refund_ends(api, made["id"])
    events = ok(api.get("/v1/events", params={"page_size": 100}))["events"]  # newest first
    mine = [e for e in reversed(events) if e["type"].startswith("refund.") and e["data"]["object"]["id"] == made["id"]]
    assert [(e["type"], e["data"]["object"]["status"]) for e in mine] == [
        ("refund.created", "Pending"), ("refund.updated", "Processing"), ("refund.updated", "Success"),
        ("refund.succeeded", "Success")]


def test_twenty_concurrent_full_card_refunds_accept_exactly_one(service: Service, merchant: dict[str, Any],
                                                                localstripe: LocalStripe) -> None:
    with httpx.Client(base_url=service.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        intent = paid_by_card(api, merchant, localstripe)

    def attempt(_: int) -> httpx.Response:
        with httpx.Client(base_url=service.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                          verify=TLS) as c:
            return refund(c, intent["id"], "10.50")

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(attempt, range(20)))
    accepted = [r for r in answers if r.status_code == 200]  # accepted = created, Pending
    assert len(accepted) == 1, [r.json() for r in answers]
    assert {r.json()["error_code"] for r in answers if r.status_code != 200} <= {"refund_amount_exceeded",
                                                                                  "invalid_payment_intent"}
    [answered] = accepted[0].json()["data"]["refunds"]
    assert answered["status"] == "Pending"
    with httpx.Client(base_url=service.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        [made] = ok(api.get("/v1/refunds", params={"payment_intent": intent["id"]}))["refunds"]
        assert made["id"] == answered["id"]
        refund_ends(api, made["id"])
        done = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert done["status"] == "Refunded"
    assert done["payment_details"]["amount_refunded"] == {"asset_id": "USD", "amount": "10.5"}
    # The money side: provider_a was asked for one refund of the whole amount, not one per request.
    assert provider_refunds(localstripe, merchant, intent) == [1050]
