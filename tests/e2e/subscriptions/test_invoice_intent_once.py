"""An open invoice has one payment intent, however many callers make it at once. A card subscription's renewal is
open without one until the scheduler's card attempt makes it; a merchant sending the invoice meanwhile made a
second (the e-mailed link paid one intent, the card another: the payer could pay twice). Every path that makes the
intent now holds the invoice's lock."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.subscriptions.support import renewal_open
from tests.e2e.subscriptions.test_sweep_isolation_service import sql
from tests.harness import Service


def test_concurrent_sends_and_intent_requests_make_one_intent_for_an_invoice_that_has_none(
        shop: httpx.Client, chain: Chain, paygate: Service) -> None:
    _, _, renewal = renewal_open(shop, chain)
    # The moment between the renewal's commit and the card attempt that makes its intent.
    sql(paygate, "UPDATE invoices SET payment_intent_id = NULL WHERE id = :id", id=renewal["id"])

    def send(n: int) -> httpx.Response:
        if n % 2:
            return shop.post(f"/v1/invoices/{renewal['id']}/send", json={})
        return shop.post("/v1/payment_intents/invoice", json={"invoice_id": renewal["id"]})

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(send, range(8)))

    made = {ok(a)["payment_intent"]["id"] for a in answers[0::2]}
    intent = ok(shop.get(f"/v1/invoices/{renewal['id']}/payment_intent"))["id"]
    assert made == {intent} and intent != renewal["payment_intent_id"]
    new = sql(paygate, "SELECT id FROM payment_intents WHERE description = :d AND id != :old",
              d=f"Invoice {renewal['id']}", old=renewal["payment_intent_id"])
    assert new == [(intent,)]
