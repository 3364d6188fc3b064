"""Saved cards: `save_payment_method` keeps a `pm_` for the customer (the provider customer made once), a `pm_` pays
a later intent off-session, the lists (secret key; public key + that customer's client secret), the resolved
identity's provider_a fields."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.cards.support import SUCCEEDS, choose_card, chose_card, new_intent, rows
from tests.harness import Service
from tests.localstripe import LocalStripe

PUBLIC_LIST = "/customers/payment_methods/public/list"


def customer(api: httpx.Client, email: str = "ann@example.com") -> dict[str, Any]:
    return ok(api.post("/v1/customers", json={"name": "Ann", "email": email}))  # type: ignore[no-any-return]


def save_a_card(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe, customer_id: str,
                number: str = SUCCEEDS) -> dict[str, Any]:
    intent = new_intent(api, customer=customer_id)
    got = chose_card(api, intent["id"], save_payment_method=True,
                     token=localstripe.tokenize(merchant["provider_a"]["publishable_key"], number))
    assert got["status"] == "Success", got
    return got


def saved_methods(api: httpx.Client, customer_id: str) -> list[dict[str, Any]]:
    return ok(api.get("/v1/customers/payment_methods", params={"customer_id": customer_id}))["payment_methods"]  # type: ignore


@pytest.fixture
def ann(api: httpx.Client) -> dict[str, Any]:
    return customer(api)


def test_saving_a_card_keeps_its_details_never_its_number(service: Service, api: httpx.Client,
                                                          merchant: dict[str, Any], localstripe: LocalStripe,
                                                          ann: dict[str, Any]) -> None:
    save_a_card(api, merchant, localstripe, ann["id"])
    [pm] = saved_methods(api, ann["id"])
    assert pm["id"].startswith("pm_") and pm["provider"] == "provider_a" and pm["type"] == "card"
    assert pm["brand"] == "visa" and pm["last4"] == "4242" and pm["exp_month"] == 12 and pm["exp_year"] == 2034
    assert pm["fingerprint"]
    [row] = rows(service, "SELECT * FROM saved_payment_methods WHERE id = :id", id=pm["id"])
    assert SUCCEEDS not in str(row)


def test_the_provider_customer_is_created_once(service: Service, api: httpx.Client, merchant: dict[str, Any],
                                               localstripe: LocalStripe, ann: dict[str, Any]) -> None:
    save_a_card(api, merchant, localstripe, ann["id"])
    [first] = rows(service, "SELECT provider_a_customer_id FROM customers WHERE id = :id", id=ann["id"])
    assert first["provider_a_customer_id"].startswith("cus_")
    save_a_card(api, merchant, localstripe, ann["id"])  # the same card again
    [second] = rows(service, "SELECT provider_a_customer_id FROM customers WHERE id = :id", id=ann["id"])
    assert second == first
    assert len(saved_methods(api, ann["id"])) == 1  # one row per card fingerprint


def test_a_saved_card_pays_another_intent_off_session(service: Service, api: httpx.Client,
                                                      merchant: dict[str, Any], localstripe: LocalStripe,
                                                      ann: dict[str, Any]) -> None:
    first = save_a_card(api, merchant, localstripe, ann["id"])
    [pm] = saved_methods(api, ann["id"])
    second = new_intent(api, amount="3.20", customer=ann["id"])
    got = chose_card(api, second["id"], payment_method_id=pm["id"])  # no token, no card: paid in this one call
    assert got["status"] == "Success" and got["charges"][0]["status"] == "Success"
    assert got["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "3.2"}
    [charge] = got["charges"]
    assert charge["payment_provider"] == "provider_a" and charge["provider_a_payload"]["status"] == "succeeded"
    # At the provider: a new PaymentIntent, charged to the saved customer's saved card.
    [row] = rows(service, "SELECT provider_customer_id, provider_payment_method_id FROM saved_payment_methods "
                          "WHERE id = :id", id=pm["id"])
    payment_id = charge["provider_a_payload"]["client_secret"].split("_secret_")[0]
    assert payment_id != first["charges"][0]["provider_a_payload"]["client_secret"].split("_secret_")[0]
    at_provider = localstripe.get(f"/v1/payment_intents/{payment_id}", merchant["provider_a"]["secret_key"])
    assert at_provider["status"] == "succeeded" and at_provider["amount"] == 320
    assert at_provider["customer"] == row["provider_customer_id"]
    assert at_provider["payment_method"] == row["provider_payment_method_id"]
    assert at_provider["metadata"]["paygate_payment_intent_id"] == second["id"]
    assert at_provider["metadata"]["paygate_charge_id"] == charge["id"]


def test_the_checkout_update_call_pays_with_a_saved_card(api: httpx.Client, anonymous: httpx.Client,
                                                         merchant: dict[str, Any], localstripe: LocalStripe,
                                                         ann: dict[str, Any]) -> None:
    # The spec's hosted checkout flow for a saved card: public key + client secret, the `pm_`, processed by the
    # service directly (no client library, no provider_a_payload step for the page).
    save_a_card(api, merchant, localstripe, ann["id"])
    [pm] = saved_methods(api, ann["id"])
    intent = new_intent(api, amount="2.75", customer=ann["id"])
    got = ok(anonymous.post(f"/payment_intents/link/{intent['id']}/update", json={
        "key": merchant["test"]["public_key"], "client_secret": intent["client_secret"],
        "payment_method_type": "cards",
        "payment_method_options": {"fiat": {"currency": "USD", "payment_method_id": pm["id"]}}}))
    assert got["status"] == "Success" and [c["status"] for c in got["charges"]] == ["Success"]
    paid = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert paid["status"] == "Success"
    assert paid["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "2.75"}


def test_the_checkout_update_call_refuses_a_saved_card_not_of_its_customer(
        api: httpx.Client, other_api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any],
        other_merchant: dict[str, Any], localstripe: LocalStripe, ann: dict[str, Any]) -> None:
    # DESIGN §11 on the public path too: another merchant's pm_, another customer's pm_ and an unknown pm_ answer
    # the same 400 on the field, and the intent is unchanged.
    save_a_card(api, merchant, localstripe, ann["id"])
    [anns] = saved_methods(api, ann["id"])
    theirs = customer(other_api, "dan@example.com")
    save_a_card(other_api, other_merchant, localstripe, theirs["id"])
    [foreign] = saved_methods(other_api, theirs["id"])
    bob = customer(api, "bob@example.com")
    intent = new_intent(api, customer=bob["id"])
    msgs = set()
    for pm_id in (foreign["id"], anns["id"], "pm_" + "0" * 24):
        refused = fails(anonymous.post(f"/payment_intents/link/{intent['id']}/update", json={
            "key": merchant["test"]["public_key"], "client_secret": intent["client_secret"],
            "payment_method_type": "cards",
            "payment_method_options": {"fiat": {"currency": "USD", "payment_method_id": pm_id}}}),
            400, "parameter_invalid", "payment_method_options.fiat.payment_method_id")
        msgs.add(refused["msg"])
    assert len(msgs) == 1  # existence never leaks
    after = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert after["status"] == "RequiresPaymentMethod" and after["charges"] == []


def test_another_merchants_saved_card_is_refused_like_an_unknown_one(api: httpx.Client, other_api: httpx.Client,
                                                                     other_merchant: dict[str, Any],
                                                                     localstripe: LocalStripe) -> None:
    theirs = customer(other_api, "bob@example.com")
    save_a_card(other_api, other_merchant, localstripe, theirs["id"])
    [pm] = saved_methods(other_api, theirs["id"])
    mine = customer(api, "carl@example.com")
    intent = new_intent(api, customer=mine["id"])
    foreign = fails(choose_card(api, intent["id"], payment_method_id=pm["id"]), 400, "parameter_invalid",
                    "payment_method_options.fiat.payment_method_id")
    unknown = fails(choose_card(api, intent["id"], payment_method_id="pm_" + "0" * 24), 400, "parameter_invalid",
                    "payment_method_options.fiat.payment_method_id")
    assert foreign["msg"] == unknown["msg"]


def test_another_customers_saved_card_is_refused(api: httpx.Client, merchant: dict[str, Any],
                                                 localstripe: LocalStripe, ann: dict[str, Any]) -> None:
    save_a_card(api, merchant, localstripe, ann["id"])
    [pm] = saved_methods(api, ann["id"])
    bob = customer(api, "bob@example.com")
    intent = new_intent(api, customer=bob["id"])
    fails(choose_card(api, intent["id"], payment_method_id=pm["id"]), 400, "parameter_invalid",
          "payment_method_options.fiat.payment_method_id")


def test_another_merchant_cannot_list_a_customers_saved_cards(api: httpx.Client, other_api: httpx.Client,
                                                             merchant: dict[str, Any], localstripe: LocalStripe,
                                                             ann: dict[str, Any]) -> None:
    save_a_card(api, merchant, localstripe, ann["id"])
    assert len(saved_methods(api, ann["id"])) == 1
    foreign = fails(other_api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]}), 400,
                    "parameter_invalid", "customer_id")
    unknown = fails(other_api.get("/v1/customers/payment_methods", params={"customer_id": "cus_" + "0" * 24}), 400,
                    "parameter_invalid", "customer_id")
    assert foreign["msg"] == unknown["msg"]


def test_saving_a_card_needs_a_customer(api: httpx.Client, merchant: dict[str, Any],
                                        localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    fails(choose_card(api, intent["id"], save_payment_method=True), 400, "parameter_invalid",
          "payment_method_options.fiat.save_payment_method")


def test_the_public_list_answers_a_public_key_and_that_customers_client_secret(
        api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        ann: dict[str, Any]) -> None:
    save_a_card(api, merchant, localstripe, ann["id"])
    intent = new_intent(api, customer=ann["id"])
    listed = ok(anonymous.get(PUBLIC_LIST, params={"customer_id": ann["id"], "key": merchant["test"]["public_key"],
                                                   "client_secret": intent["client_secret"]}))
    merchants = saved_methods(api, ann["id"])
    assert listed["payment_methods"] == [dict(m, fingerprint="") for m in merchants]
    assert listed["payment_methods"][0]["last4"] == "4242"


def test_the_public_list_shows_no_card_fingerprint_which_the_merchants_list_keeps(
        api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        ann: dict[str, Any]) -> None:
    save_a_card(api, merchant, localstripe, ann["id"])
    intent = new_intent(api, customer=ann["id"])
    [public] = ok(anonymous.get(PUBLIC_LIST, params={"customer_id": ann["id"], "key": merchant["test"]["public_key"],
                                                     "client_secret": intent["client_secret"]}))["payment_methods"]
    [own] = saved_methods(api, ann["id"])
    assert public["fingerprint"] == "" and own["fingerprint"] != ""


def test_the_public_list_refuses_another_customers_client_secret(api: httpx.Client, anonymous: httpx.Client,
                                                                 merchant: dict[str, Any], localstripe: LocalStripe,
                                                                 ann: dict[str, Any]) -> None:
    save_a_card(api, merchant, localstripe, ann["id"])
    bob = customer(api, "bob@example.com")
    bobs_intent = new_intent(api, customer=bob["id"])
    fails(anonymous.get(PUBLIC_LIST, params={"customer_id": ann["id"], "key": merchant["test"]["public_key"],
                                             "client_secret": bobs_intent["client_secret"]}), 401, "unauthorized")
    no_customer = new_intent(api)
    fails(anonymous.get(PUBLIC_LIST, params={"customer_id": ann["id"], "key": merchant["test"]["public_key"],
                                             "client_secret": no_customer["client_secret"]}), 401, "unauthorized")
    anns_intent = new_intent(api, customer=ann["id"])
    forged = anns_intent["client_secret"].split("_secret_")[0] + "_secret_" + "x" * 24
    fails(anonymous.get(PUBLIC_LIST, params={"customer_id": ann["id"], "key": merchant["test"]["public_key"],
                                             "client_secret": forged}), 401, "unauthorized")
    fails(anonymous.get(PUBLIC_LIST, params={"customer_id": ann["id"], "key": merchant["test"]["public_key"]}),
          401, "unauthorized")


def test_the_public_list_refuses_another_merchants_public_key(api: httpx.Client, anonymous: httpx.Client,
                                                             other_merchant: dict[str, Any],
                                                             ann: dict[str, Any]) -> None:
    intent = new_intent(api, customer=ann["id"])
    fails(anonymous.get(PUBLIC_LIST, params={"customer_id": ann["id"], "key": other_merchant["test"]["public_key"],
                                             "client_secret": intent["client_secret"]}), 401, "unauthorized")


def test_the_resolved_identity_shows_the_provider_customer(api: httpx.Client, merchant: dict[str, Any],
                                                           localstripe: LocalStripe, ann: dict[str, Any]) -> None:
    def resolved() -> dict[str, Any]:
        token = ok(api.post("/v1/customers/ephemeral_tokens", json={
            "idp_key": "email", "idp_subject": "ann@example.com", "provider": "web", "allow_create": False}))["token"]
        return ok(api.post("/v1/customers/identities/resolve",  # type: ignore[no-any-return]
                           json={"request": json.dumps({"ephemeral_token": token})}))

    before = resolved()
    assert before["customer_id"] == ann["id"]
    assert before["provider_a_customer_id"] == "" and before["is_saved_customer"] is False
    save_a_card(api, merchant, localstripe, ann["id"])
    after = resolved()
    assert after["provider_a_customer_id"].startswith("cus_") and after["is_saved_customer"] is True
