"""A card saved with `save_payment_method: true` on the payer-confirmed path (no token: the payer's own page confirms
the provider's payment) is attached to the provider customer, as real Stripe requires before an off-session reuse
(DESIGN §17). The provider customer's cards are read at the provider, with the stripe library.

localstripe refuses `setup_future_usage` on a PaymentIntent (400 "Unexpected setup_future_usage") and never attaches
a card on its own; paygate then attaches the card explicitly (server/rails/provider_a/client.py).
"""

from __future__ import annotations

from typing import Any

import httpx
import stripe

from tests.conftest import ok
from tests.e2e.cards.support import SUCCEEDS, chose_card, new_intent, poll, wait_for
from tests.localstripe import LocalStripe


def _provider(localstripe: LocalStripe, merchant: dict[str, Any]) -> Any:
    return stripe.StripeClient(merchant["provider_a"]["secret_key"], base_addresses={"api": localstripe.url}).v1


def _payer_confirms(localstripe: LocalStripe, merchant: dict[str, Any], payment_id: str) -> str:
    """What the payer's page does with Stripe.js on real Stripe (localstripe's Stripe.js cannot send card details
    on confirm): a card made at the provider, set on the payment, the payment confirmed. The card's id."""
    provider = _provider(localstripe, merchant)
    card = provider.payment_methods.create(params={"type": "card", "card": {
        "number": SUCCEEDS, "exp_month": 12, "exp_year": 2034, "cvc": "123"}})
    provider.payment_intents.update(payment_id, params={"payment_method": card.id})
    assert provider.payment_intents.confirm(payment_id).status == "succeeded"
    return str(card.id)


def _saved_on_the_payers_page(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe
                              ) -> tuple[str, str, str]:
    """(our customer, the provider customer, the provider's id of the card paid with), once paygate has recorded the
    payment and kept the card for its customer."""
    ann = ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))
    intent = new_intent(api, customer=ann["id"])
    charge = chose_card(api, intent["id"], save_payment_method=True)["charges"][-1]
    payment_id = charge["provider_a_payload"]["client_secret"].split("_secret_")[0]
    card = _payer_confirms(localstripe, merchant, payment_id)
    wait_for(api, intent["id"], lambda i: i["status"] == "Success")
    poll(lambda: {"saved": ok(api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]}))[
        "payment_methods"]}, lambda seen: len(seen["saved"]) == 1)
    customer = _provider(localstripe, merchant).payment_intents.retrieve(payment_id).customer
    assert str(customer).startswith("cus_"), customer
    return ann["id"], str(customer), card


def test_a_card_saved_on_the_payers_page_is_attached_to_the_provider_customer(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    _, customer, card = _saved_on_the_payers_page(api, merchant, localstripe)
    listed = _provider(localstripe, merchant).payment_methods.list(params={"customer": customer, "type": "card"})
    assert [m.id for m in listed.data] == [card]


def test_a_card_saved_on_the_payers_page_pays_another_intent_of_its_customer_off_session(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    ann, customer, card = _saved_on_the_payers_page(api, merchant, localstripe)
    [saved] = ok(api.get("/v1/customers/payment_methods", params={"customer_id": ann}))["payment_methods"]
    got = chose_card(api, new_intent(api, amount="3.20", customer=ann)["id"], payment_method_id=saved["id"])
    assert got["status"] == "Success", got
    payment_id = got["charges"][-1]["provider_a_payload"]["client_secret"].split("_secret_")[0]
    at_provider = _provider(localstripe, merchant).payment_intents.retrieve(payment_id)
    assert (at_provider.customer, at_provider.payment_method, at_provider.amount) == (customer, card, 320)


def test_a_card_saved_from_a_token_is_a_source_of_the_provider_customer(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    ann = ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))
    token = localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS)
    got = chose_card(api, new_intent(api, customer=ann["id"])["id"], save_payment_method=True, token=token)
    assert got["status"] == "Success", got
    payment_id = got["charges"][-1]["provider_a_payload"]["client_secret"].split("_secret_")[0]
    provider = _provider(localstripe, merchant)
    at_provider = provider.payment_intents.retrieve(payment_id)
    sources = provider.customers.payment_sources.list(str(at_provider.customer))
    assert [s.id for s in sources.data] == [at_provider.payment_method]
