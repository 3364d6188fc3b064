"""The invoice calls through /v1 (DESIGN §8): the one intent of an open invoice, sending it again by e-mail, voiding
it (open or draft only), pause `void` voiding the open invoice at pause time, and the list filters of subscriptions
and invoices."""

from __future__ import annotations

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.subscriptions.conftest import Inbox
from tests.e2e.subscriptions.support import (
    advance,
    buy,
    club,
    customer,
    invoices,
    mailed_intent,
    renewal_open,
    subscribe,
)


def test_an_open_invoice_has_one_intent_and_send_mails_its_payment_link_again(
        shop: httpx.Client, chain: Chain, inbox: Inbox) -> None:
    who, _, invoice = renewal_open(shop, chain)
    first = ok(shop.post("/v1/payment_intents/invoice", json={"invoice_id": invoice["id"]}))["payment_intent"]
    again = ok(shop.post("/v1/payment_intents/invoice", json={"invoice_id": invoice["id"]}))["payment_intent"]
    assert first["id"] == again["id"] == invoice["payment_intent_id"]  # created once
    assert ok(shop.get(f"/v1/invoices/{invoice['id']}/payment_intent"))["id"] == first["id"]
    mailed_intent(inbox, who["email"], 1)
    sent = ok(shop.post(f"/v1/invoices/{invoice['id']}/send", json={}))
    assert (sent["id"], sent["status"]) == (invoice["id"], "open")
    url, intent_id = mailed_intent(inbox, who["email"], 2)
    assert (url, intent_id) == (invoice["payment_url"], first["id"])


def test_the_invoice_intent_call_answers_data_payment_intent(shop: httpx.Client, chain: Chain) -> None:
    _, _, invoice = renewal_open(shop, chain)
    data = ok(shop.post("/v1/payment_intents/invoice", json={"invoice_id": invoice["id"]}))
    assert set(data) == {"payment_intent"}, data  # as the SDK's link create path answers (DESIGN §17)
    assert (data["payment_intent"]["id"], data["payment_intent"]["object"]) == (invoice["payment_intent_id"],
                                                                                "payment_intent")


def test_void_takes_an_open_invoice_and_refuses_a_void_or_paid_one(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    first, renewal = invoices(shop, sub["id"])
    voided = ok(shop.post(f"/v1/invoices/{renewal['id']}/void", json={}))
    assert voided["status"] == "void" and voided["voided_at"] is not None
    fails(shop.post(f"/v1/invoices/{renewal['id']}/void", json={}), 409, "invoice_not_open")
    fails(shop.post(f"/v1/invoices/{first['id']}/void", json={}), 409, "invoice_not_open")
    assert ok(shop.get(f"/v1/invoices/{first['id']}"))["status"] == "paid"  # the refusal changed nothing


def test_pause_with_void_voids_the_open_invoice_at_pause_time(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    renewal = invoices(shop, sub["id"])[-1]
    assert renewal["status"] == "open"
    ok(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={"behavior": "void"}))
    assert ok(shop.get(f"/v1/invoices/{renewal['id']}"))["status"] == "void"


def test_lists_filter_by_customer_and_status(shop: httpx.Client, chain: Chain) -> None:
    c, one, two = club(shop), customer(shop), customer(shop)
    active = subscribe(shop, chain, c, one)
    waiting = buy(shop, c, two)  # incomplete: its first invoice is open
    mine = ok(shop.get("/v1/subscriptions", params={"customer_id": one["id"]}))
    assert (mine["total"], [s["id"] for s in mine["data"]]) == (1, [active["id"]])
    incomplete = ok(shop.get("/v1/subscriptions", params={"status": "incomplete"}))
    assert [s["id"] for s in incomplete["data"]] == [waiting["subscription"]]
    paid = ok(shop.get("/v1/invoices", params={"status": "paid"}))["data"]
    assert [i["subscription_id"] for i in paid] == [active["id"]]
    theirs = ok(shop.get("/v1/invoices", params={"customer_id": two["id"]}))["data"]
    assert [(i["id"], i["status"]) for i in theirs] == [(waiting["invoice"], "open")]
    fails(shop.get("/v1/subscriptions", params={"status": "sleeping"}), 400, "parameter_invalid", "status")


def test_a_subscription_and_its_invoices_carry_the_merchant_order_id_of_its_purchase_as_external_id(
        shop: httpx.Client, chain: Chain) -> None:
    c, one, two = club(shop), customer(shop), customer(shop)
    ordered = subscribe(shop, chain, c, one, merchant_order_id="order-7781")
    buy(shop, c, two, merchant_order_id="order-7782")
    assert ordered["external_id"] == "order-7781"
    assert [i["external_id"] for i in invoices(shop, ordered["id"])] == ["order-7781"]
    found = ok(shop.get("/v1/subscriptions", params={"external_id": "order-7781"}))
    assert (found["total"], [s["id"] for s in found["data"]]) == (1, [ordered["id"]])
    assert ok(shop.get("/v1/subscriptions", params={"external_id": "order-0000"}))["total"] == 0
