"""A closed invoice takes no money (DESIGN §8): voiding an invoice — through `/void`, by canceling its subscription
now, or when dunning gives up on it (uncollectible) — cancels its payment intent in the same transaction, so the
e-mailed `payment_url` answers 409 `ErrStatusUnexpected` and charges nothing. Card subscriptions on localstripe,
whose renewals of the 4000000000000341 card are declined (left open for the test to close)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx

from tests.conftest import fails, ok
from tests.e2e.cards.support import DECLINED, SUCCEEDS
from tests.e2e.subscriptions import test_card_renewals as card_renewals
from tests.e2e.subscriptions.support import DAY, advance, invoices
from tests.e2e.subscriptions.test_card_renewals import card_subscription, invoice_intent
from tests.harness import TLS, Service
from tests.localstripe import LocalStripe

# The card renewals' fixtures: localstripe as provider_a, paygate on SQLite and PostgreSQL, a merchant with keys.
localstripe = card_renewals.localstripe
paygate = card_renewals.paygate
card_shop = card_renewals.card_shop


def declined_renewal(shop: httpx.Client, localstripe: LocalStripe, pk: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A subscription past due on its first paid cycle, and that open renewal invoice."""
    sub = card_subscription(shop, localstripe, pk, plan="trial", number=DECLINED)
    advance(shop, sub["id"], sub["trial_end"] + 60)
    inv = invoices(shop, sub["id"])[-1]
    assert (inv["status"], inv["billing_reason"]) == ("open", "subscription_cycle")
    return sub, inv


def pay_from_link(paygate: Service, shop: httpx.Client, localstripe: LocalStripe, pk: str, inv: dict[str, Any]
                  ) -> httpx.Response:
    """What the customer's browser does with the e-mailed payment_url: a new card on the hosted checkout."""
    url = urlparse(inv["payment_url"])
    public_key = ok(shop.get("/v1/merchants/me"))["test"]["public_key"]
    return httpx.post(f"{paygate.http_url}/payment_intents/link/{url.path.rsplit('/', 1)[-1]}/update", json={
        "key": public_key, "client_secret": parse_qs(url.query)["client_secret"][0],
        "payment_method_type": "cards",
        "payment_method_options": {"fiat": {"currency": "USD", "token": localstripe.tokenize(pk, SUCCEEDS)}}},
        timeout=60, verify=TLS)


def test_voiding_an_invoice_cancels_its_payment_intent(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    _sub, inv = declined_renewal(shop, localstripe, pk)
    voided = ok(shop.post(f"/v1/invoices/{inv['id']}/void", json={}))
    assert voided["status"] == "void"
    intent = invoice_intent(shop, inv["id"])
    assert (intent["status"], intent["cancellation_reason"]) == ("Canceled", "invoice_void")


def test_paying_a_voided_invoice_from_its_link_is_refused_and_charges_nothing(
        paygate: Service, card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    _sub, inv = declined_renewal(shop, localstripe, pk)
    ok(shop.post(f"/v1/invoices/{inv['id']}/void", json={}))
    fails(pay_from_link(paygate, shop, localstripe, pk, inv), 409, "ErrStatusUnexpected")
    intent = invoice_intent(shop, inv["id"])
    assert intent["status"] == "Canceled"
    assert [c["status"] for c in intent["charges"]] == ["Failed"]  # the declined renewal only
    assert ok(shop.get(f"/v1/invoices/{inv['id']}"))["amount_paid"] == "0"


def test_canceling_a_subscription_now_cancels_the_payment_intent_of_its_open_invoice(
        paygate: Service, card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    sub, inv = declined_renewal(shop, localstripe, pk)
    canceled = ok(shop.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": False}))
    assert canceled["status"] == "canceled"
    assert ok(shop.get(f"/v1/invoices/{inv['id']}"))["status"] == "void"
    intent = invoice_intent(shop, inv["id"])
    assert (intent["status"], intent["cancellation_reason"]) == ("Canceled", "invoice_void")
    fails(pay_from_link(paygate, shop, localstripe, pk, inv), 409, "ErrStatusUnexpected")


def test_giving_up_on_an_unpaid_renewal_cancels_its_payment_intent(
        paygate: Service, card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    sub, inv = declined_renewal(shop, localstripe, pk)
    ended = advance(shop, sub["id"], sub["trial_end"] + 5 * DAY + 60)
    assert (ended["status"], ended["cancel_reason"]) == ("canceled", "payment_failed")
    assert ok(shop.get(f"/v1/invoices/{inv['id']}"))["status"] == "uncollectible"
    intent = invoice_intent(shop, inv["id"])
    assert (intent["status"], intent["cancellation_reason"]) == ("Canceled", "invoice_uncollectible")
    fails(pay_from_link(paygate, shop, localstripe, pk, inv), 409, "ErrStatusUnexpected")
