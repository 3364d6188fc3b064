"""A crypto subscription created by paying on chain, renewed through the test clock by paying the e-mailed
invoice, and one that is not paid: past_due, then canceled."""

from __future__ import annotations

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.subscriptions.conftest import Inbox
from tests.e2e.subscriptions.support import (
    DAY,
    advance,
    buy,
    club,
    customer,
    invoices,
    mailed_intent,
    pay,
    subscribe,
    subscription,
    wait_for,
)


def test_an_intent_for_a_selling_plan_creates_an_incomplete_subscription_and_its_first_invoice(
        shop: httpx.Client) -> None:
    c, who = club(shop), customer(shop)
    intent = buy(shop, c, who)
    assert intent["invoice"].startswith("inv_") and intent["subscription"].startswith("sub_")
    sub = subscription(shop, intent["subscription"])
    assert (sub["status"], sub["payment_required"], sub["current_cycle_number"]) == ("incomplete", True, 1)
    assert sub["payment_url"] == f"https://checkout.test/pay/{intent['id']}?client_secret={intent['client_secret']}"
    assert sub["payment_expires_at"] == intent["expired_at"]
    assert (sub["canceled_at"], sub["cancel_reason"], sub["paused_at"], sub["resumes_at"]) == (None, None, None, None)
    assert sub["pending_update"] is None and sub["test_clock"] is None
    first = ok(shop.get(f"/v1/invoices/{intent['invoice']}"))
    assert (first["status"], first["billing_reason"], first["cycle_number"], first["amount"]) == (
        "open", "subscription_create", 1, "10.00")
    assert first["payment_intent_id"] == intent["id"] and first["customer_email"] == who["email"]


def test_paying_on_chain_activates_the_subscription_from_the_payment_time(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    intent = buy(shop, c, who)
    paid = pay(shop, chain, intent["id"])
    sub = wait_for(lambda: subscription(shop, intent["subscription"]), lambda s: s["status"] == "active")
    assert (sub["payment_required"], sub["payment_url"], sub["payment_expires_at"]) == (False, None, None)
    assert sub["current_period_start"] == sub["billing_cycle_anchor"] >= paid["created"]
    assert sub["current_period_end"] > sub["current_period_start"] + 27 * DAY
    assert (sub["collection_method"], sub["default_payment_method_type"]) == ("send_invoice", "crypto")
    assert (sub["next_charge_amount"], sub["next_charge_amount_display"]) == ("10.00", "$10.00")
    first = invoices(shop, sub["id"])[0]
    assert (first["status"], first["amount_paid"], first["period_start"]) == ("paid", "10.00",
                                                                               sub["current_period_start"])
    events = ok(shop.get("/v1/events", params={"page_size": 100}))["events"]
    assert "subscription.created" in [e["type"] for e in events]
    expanded = ok(shop.get(f"/v1/payment_intents/{intent['id']}", params={"expand": ["invoice", "subscription"]}))
    assert expanded["invoice_details"]["id"] == intent["invoice"]
    assert expanded["subscription_details"]["status"] == "active"
    plain = ok(shop.get(f"/v1/payment_intents/{intent['id']}"))
    assert (plain["invoice_details"], plain["subscription_details"]) == (None, None)


def test_a_renewal_is_emailed_and_paying_it_advances_the_period_from_the_old_end(
        shop: httpx.Client, chain: Chain, inbox: Inbox) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    old_end = sub["current_period_end"]
    renewed = advance(shop, sub["id"], old_end + 60)
    assert renewed["status"] == "active" and renewed["current_period_end"] == old_end  # waits for the payment
    invoice = invoices(shop, sub["id"])[-1]
    assert (invoice["status"], invoice["billing_reason"], invoice["cycle_number"]) == (
        "open", "subscription_cycle", 2)
    assert (invoice["period_start"], invoice["due_date"]) == (old_end, old_end + 3 * DAY)
    url, intent_id = mailed_intent(inbox, who["email"], 1)
    assert url == invoice["payment_url"] and intent_id == invoice["payment_intent_id"]
    pay(shop, chain, intent_id)
    after = wait_for(lambda: subscription(shop, sub["id"]), lambda s: s["current_cycle_number"] == 2)
    assert (after["status"], after["current_period_start"]) == ("active", old_end)
    assert after["current_period_end"] > old_end + 27 * DAY
    assert ok(shop.get(f"/v1/invoices/{invoice['id']}"))["status"] == "paid"


def test_an_unpaid_renewal_falls_past_due_and_is_canceled_after_seven_days(
        shop: httpx.Client, chain: Chain, inbox: Inbox) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    end = sub["current_period_end"]
    assert advance(shop, sub["id"], end + 3 * DAY - 60)["status"] == "active"
    late = advance(shop, sub["id"], end + 3 * DAY + 60)
    assert late["status"] == "past_due" and late["latest_invoice_id"] == invoices(shop, sub["id"])[-1]["id"]
    gone = advance(shop, sub["id"], end + 7 * DAY + 60)
    assert (gone["status"], gone["cancel_reason"]) == ("canceled", "payment_failed")
    assert invoices(shop, sub["id"])[-1]["status"] == "uncollectible"
    assert len(invoices(shop, sub["id"])) == 2  # nothing renews after the end


def test_an_unpaid_first_intent_expires_into_incomplete_expired(shop: httpx.Client) -> None:
    c, who = club(shop), customer(shop)
    intent = buy(shop, c, who, expires_in=1)
    sub = wait_for(lambda: subscription(shop, intent["subscription"]), lambda s: s["status"] == "canceled")
    assert (sub["cancel_reason"], sub["payment_url"]) == ("incomplete_expired", None)
    assert ok(shop.get(f"/v1/invoices/{intent['invoice']}"))["status"] == "void"


def test_a_free_trial_starts_when_crypto_is_chosen_and_the_first_paid_cycle_starts_at_its_end(
        shop: httpx.Client, inbox: Inbox) -> None:
    c, who = club(shop), customer(shop)
    intent = buy(shop, c, who, plan="trial")
    assert intent["amount"]["amount"] == "0"
    chosen = ok(shop.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))
    assert chosen["payment_intents"][0]["status"] == "Success"
    sub = subscription(shop, intent["subscription"])
    assert (sub["status"], sub["current_cycle_number"], sub["next_charge_amount"]) == ("active", 0, "10.00")
    assert sub["trial_end"] - sub["trial_start"] == 14 * DAY == sub["current_period_end"] - sub["current_period_start"]
    assert sub["billing_cycle_anchor"] == sub["trial_end"]
    assert sub["upcoming_pricing_tier"]["cycle_number"] == 1
    first_paid = advance(shop, sub["id"], sub["trial_end"] + 60)
    invoice = invoices(shop, sub["id"])[-1]
    assert (invoice["cycle_number"], invoice["amount"], invoice["period_start"]) == (1, "10.00", sub["trial_end"])
    assert first_paid["status"] == "active"
    assert mailed_intent(inbox, who["email"], 1)[1] == invoice["payment_intent_id"]
