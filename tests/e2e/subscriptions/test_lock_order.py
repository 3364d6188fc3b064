"""One lock order on PostgreSQL: a payment intent before its subscription (server/subscriptions/locks.py).

A payment moves its intent first and its subscription after (the intent's lock, then its invoice's subscription, in
the outbox subscriber); cancel-now, a `void` pause and the scheduler's steps that close an invoice used to lock the
subscription first and its invoice's intent after. Two such calls at once could each hold the row the other waits
for: PostgreSQL then aborts one ("deadlock detected") and the caller gets 503. Each test here runs the two kinds of
call at the same moment, many times, over real HTTP against a real paygate on PostgreSQL: never a 5xx, and the rows
end in the one state either order gives. A race is a race: on the old order these failed often (not on every run);
they stay as regression guards of the order."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ok
from tests.e2e.subscriptions.support import DAY, advance, buy, club, customer, invoices, subscription
from tests.harness import Service, start, stop

ROUNDS = 30
RENEWAL_ROUNDS = 15


@pytest.fixture(scope="module")
def paygate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """PostgreSQL only: SQLite has one writer at a time, so nothing there can deadlock."""
    svc = start("postgresql", Path(tmp_path_factory.mktemp("subs-lock-order")))
    yield svc
    stop(svc)


def at_once(shop: httpx.Client, *posts: tuple[str, dict[str, Any]]) -> None:
    """The POSTs made together, each from its own thread, released at the same moment; each is done or refused
    (409, the other one won), never a server error."""
    gate = threading.Barrier(len(posts))

    def post(path_and_body: tuple[str, dict[str, Any]]) -> httpx.Response:
        gate.wait()
        return shop.post(path_and_body[0], json=path_and_body[1])
    with ThreadPoolExecutor(len(posts)) as pool:
        answers = list(pool.map(post, posts))
    for answer in answers:
        assert answer.status_code in (200, 409), answer.json()


def test_cancel_now_racing_the_cancel_of_its_first_payment_never_deadlocks(shop: httpx.Client) -> None:
    c, who = club(shop), customer(shop)
    for _ in range(ROUNDS):
        intent = buy(shop, c, who)
        at_once(shop, (f"/v1/subscriptions/{intent['subscription']}/cancel", {"cancel_at_period_end": False}),
                (f"/v1/payment_intents/{intent['id']}/cancel", {}))
        assert subscription(shop, intent["subscription"])["status"] == "canceled"
        assert ok(shop.get(f"/v1/invoices/{intent['invoice']}"))["status"] == "void"
        assert ok(shop.get(f"/v1/payment_intents/{intent['id']}"))["status"] == "Canceled"


def renewal_due(shop: httpx.Client, c: dict[str, Any], who: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An active subscription whose free trial ended (no chain needed: a trial costs nothing), and its open first
    renewal invoice, with the payment intent e-mailed to the customer."""
    intent = buy(shop, c, who, plan="trial")
    ok(shop.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))
    sub = subscription(shop, intent["subscription"])
    sub = advance(shop, sub["id"], sub["trial_end"] + 60)
    renewal = invoices(shop, sub["id"])[-1]
    assert (sub["status"], renewal["status"]) == ("active", "open") and renewal["payment_intent_id"]
    return sub, renewal


def test_a_void_pause_racing_the_cancel_of_the_renewal_payment_never_deadlocks(shop: httpx.Client) -> None:
    c, who = club(shop), customer(shop)
    for _ in range(RENEWAL_ROUNDS):
        sub, renewal = renewal_due(shop, c, who)
        at_once(shop, (f"/v1/subscriptions/{sub['id']}/pause", {"behavior": "void"}),
                (f"/v1/payment_intents/{renewal['payment_intent_id']}/cancel", {}))
        assert subscription(shop, sub["id"])["status"] == "paused"
        assert ok(shop.get(f"/v1/invoices/{renewal['id']}"))["status"] == "void"
        assert ok(shop.get(f"/v1/payment_intents/{renewal['payment_intent_id']}"))["status"] == "Canceled"


def test_dunning_giving_up_racing_the_cancel_of_the_renewal_payment_never_deadlocks(shop: httpx.Client) -> None:
    """The test clock runs the scheduler's own steps: here the last one of dunning, which closes the invoice."""
    c, who = club(shop), customer(shop)
    for _ in range(RENEWAL_ROUNDS):
        sub, renewal = renewal_due(shop, c, who)
        assert advance(shop, sub["id"], renewal["period_start"] + 7 * DAY - 60)["status"] == "past_due"
        at_once(shop, (f"/v1/subscriptions/{sub['id']}/test_clock/advance",  # the one step left: giving up
                       {"to": renewal["period_start"] + 7 * DAY + 60}),
                (f"/v1/payment_intents/{renewal['payment_intent_id']}/cancel", {}))
        ended = subscription(shop, sub["id"])
        assert (ended["status"], ended["cancel_reason"]) == ("canceled", "payment_failed")
        assert ok(shop.get(f"/v1/invoices/{renewal['id']}"))["status"] == "uncollectible"
        assert ok(shop.get(f"/v1/payment_intents/{renewal['payment_intent_id']}"))["status"] == "Canceled"
