"""Card subscriptions (DESIGN §8) through `/v1` and the test clock, on localstripe as provider_a, on SQLite and
PostgreSQL: the card that paid (or was saved for a free trial) is charged off-session at each period end with the
invoice id as idempotency key; a decline makes the subscription past_due and is retried 1, 3 and 5 days after the
period end; still refused after the last retry, the subscription is canceled (`payment_failed`).

localstripe refuses charges of 4000000000000341 while it attaches it fine: saved for a free trial (saved, not
charged), it is the card whose renewals are declined.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ok
from tests.e2e.cards.conftest import card_keys
from tests.e2e.cards.support import DECLINED, SUCCEEDS
from tests.e2e.subscriptions.conftest import Inbox
from tests.e2e.subscriptions.support import DAY, advance, buy, club, customer, invoices, subscription, wait_for
from tests.harness import TLS, Service, start, stop
from tests.localstripe import LocalStripe, start_localstripe, stop_localstripe


@pytest.fixture(scope="module")
def localstripe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStripe]:
    ls = start_localstripe(Path(tmp_path_factory.mktemp("localstripe-subs")))
    yield ls
    stop_localstripe(ls)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def paygate(request: pytest.FixtureRequest, localstripe: LocalStripe, smtp: tuple[Inbox, int],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"subs-cards-{request.param}")),
                extra_env={"PAYGATE_PROVIDER_A_API_BASE": localstripe.url,
                           "PAYGATE_SMTP_URL": f"smtp://127.0.0.1:{smtp[1]}"})
    yield svc
    stop(svc)


@pytest.fixture
def card_shop(paygate: Service) -> Iterator[tuple[httpx.Client, str]]:
    """A merchant with provider_a test keys: its API client and its publishable key."""
    merchant: dict[str, Any] = paygate.create_merchant("Coffee club")
    keys = card_keys(paygate, merchant["merchant_id"])
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as client:
        yield client, keys["publishable_key"]


def pay_by_card(shop: httpx.Client, intent_id: str, token: str) -> dict[str, Any]:
    return ok(shop.post(f"/v1/payment_intents/{intent_id}", json={  # type: ignore[no-any-return]
        "payment_method_type": "cards",
        "payment_method_options": {"fiat": {"currency": "USD", "save_payment_method": True, "token": token}}}))


def card_subscription(shop: httpx.Client, localstripe: LocalStripe, pk: str, *, plan: str, number: str
                      ) -> dict[str, Any]:
    c, who = club(shop), customer(shop)
    intent = buy(shop, c, who, plan=plan)
    pay_by_card(shop, intent["id"], localstripe.tokenize(pk, number))
    return wait_for(lambda: subscription(shop, intent["subscription"]), lambda s: s["status"] == "active")


def invoice_intent(shop: httpx.Client, invoice_id: str) -> dict[str, Any]:
    return ok(shop.get(f"/v1/invoices/{invoice_id}/payment_intent"))  # type: ignore[no-any-return]


def test_a_card_subscription_renews_off_session_at_the_period_end(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    sub = card_subscription(shop, localstripe, pk, plan="monthly", number=SUCCEEDS)
    assert sub["default_payment_method_id"].startswith("pm_")
    assert sub["collection_method"] == "charge_automatically"
    renewed = advance(shop, sub["id"], sub["current_period_end"] + 60)
    assert renewed["status"] == "active" and renewed["current_cycle_number"] == 2
    assert renewed["current_period_start"] == sub["current_period_end"]  # from the old end, not the payment time
    _first, second = invoices(shop, sub["id"])
    assert (second["billing_reason"], second["status"], second["cycle_number"]) == ("subscription_cycle", "paid", 2)
    assert (second["amount_paid"], second["attempt_count"]) == ("10.00", 1)
    paid = invoice_intent(shop, second["id"])
    assert paid["status"] == "Success" and paid["payment_method_type"] == "cards"
    assert [ch["status"] for ch in paid["charges"]] == ["Success"]  # charged once


def test_invoice_upcoming_is_sent_once_3_days_before_each_renewal(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    sub = card_subscription(shop, localstripe, pk, plan="monthly", number=SUCCEEDS)
    renewed = advance(shop, sub["id"], sub["current_period_end"] + 60)
    advance(shop, sub["id"], renewed["current_period_end"] - 3 * DAY - 60)
    upcoming = ok(shop.get("/v1/events", params={"type": "invoice.upcoming", "page_size": 100}))["events"]
    mine = [e["data"]["object"] for e in upcoming if e["data"]["object"]["subscription_id"] == sub["id"]]
    assert [(i["cycle_number"], i["period_start"], i["amount"]) for i in reversed(mine)] == [
        (2, sub["current_period_end"], "10.00")]
    advance(shop, sub["id"], renewed["current_period_end"] - 3 * DAY + 60)
    upcoming = ok(shop.get("/v1/events", params={"type": "invoice.upcoming", "page_size": 100}))["events"]
    mine = [e["data"]["object"] for e in upcoming if e["data"]["object"]["subscription_id"] == sub["id"]]
    assert [(i["cycle_number"], i["period_start"]) for i in reversed(mine)] == [
        (2, sub["current_period_end"]), (3, renewed["current_period_end"])]


def test_a_card_free_trial_saves_the_card_without_charging_and_charges_it_at_trial_end(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    c, who = club(shop), customer(shop)
    intent = buy(shop, c, who, plan="trial")
    assert intent["amount"]["amount"] == "0"
    chosen = pay_by_card(shop, intent["id"], localstripe.tokenize(pk, SUCCEEDS))["payment_intents"][0]
    assert chosen["status"] == "Success"  # nothing to pay: the card is saved, not charged
    [setup] = chosen["charges"]
    assert (setup["status"], setup["amount"]["amount"], setup["provider_a_payload"]["client_secret"]) == \
        ("Success", "0", "")
    saved = ok(shop.get("/v1/customers/payment_methods", params={"customer_id": who["id"]}))["payment_methods"]
    sub = subscription(shop, intent["subscription"])
    assert (sub["status"], sub["current_cycle_number"]) == ("active", 0)
    assert sub["trial_end"] - sub["trial_start"] == 14 * DAY
    assert [sub["default_payment_method_id"]] == [pm["id"] for pm in saved]
    assert sub["collection_method"] == "charge_automatically"
    [trial] = invoices(shop, sub["id"])
    assert (trial["status"], trial["amount_paid"]) == ("paid", "0")
    first_paid = advance(shop, sub["id"], sub["trial_end"] + 60)
    assert first_paid["status"] == "active" and first_paid["current_period_start"] == sub["trial_end"]
    cycle = invoices(shop, sub["id"])[-1]
    assert (cycle["cycle_number"], cycle["status"], cycle["amount_paid"]) == (1, "paid", "10.00")


def test_a_declined_renewal_is_retried_and_recovers_when_the_card_is_charged(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    sub = card_subscription(shop, localstripe, pk, plan="trial", number=DECLINED)
    end = sub["trial_end"]
    declined = advance(shop, sub["id"], end + 60)
    assert declined["status"] == "past_due"
    inv = invoices(shop, sub["id"])[-1]
    assert (inv["status"], inv["attempt_count"], inv["next_payment_attempt"]) == ("open", 1, end + DAY)
    retried = advance(shop, sub["id"], end + DAY + 60)
    assert retried["status"] == "past_due"
    inv = invoices(shop, sub["id"])[-1]
    assert (inv["status"], inv["attempt_count"], inv["next_payment_attempt"]) == ("open", 2, end + 3 * DAY)
    intent = invoice_intent(shop, inv["id"])
    assert [ch["status"] for ch in intent["charges"]][-2:] == ["Failed", "Failed"]
    # The customer pays the invoice's own intent with another card: the subscription is active again and its
    # period runs from the old end.
    pay_by_card(shop, intent["id"], localstripe.tokenize(pk, SUCCEEDS))
    back = wait_for(lambda: subscription(shop, sub["id"]), lambda s: s["status"] == "active")
    assert (back["current_cycle_number"], back["current_period_start"]) == (1, end)
    assert invoices(shop, sub["id"])[-1]["status"] == "paid"
    later = advance(shop, sub["id"], end + 6 * DAY)
    assert later["status"] == "active"  # no retry left behind
    assert len(invoice_intent(shop, inv["id"])["charges"]) == 3


def test_a_card_renewal_declined_after_the_last_retry_cancels_payment_failed(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    sub = card_subscription(shop, localstripe, pk, plan="trial", number=DECLINED)
    end = sub["trial_end"]
    still = advance(shop, sub["id"], end + 5 * DAY - 60)
    assert still["status"] == "past_due" and invoices(shop, sub["id"])[-1]["attempt_count"] == 3
    ended = advance(shop, sub["id"], end + 5 * DAY + 60)
    assert (ended["status"], ended["cancel_reason"]) == ("canceled", "payment_failed")
    inv = invoices(shop, sub["id"])[-1]
    assert (inv["status"], inv["attempt_count"]) == ("uncollectible", 4)
    assert [ch["status"] for ch in invoice_intent(shop, inv["id"])["charges"]] == ["Failed"] * 4
