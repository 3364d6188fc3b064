"""Advance notices (DESIGN §8): `subscription.trial_will_end` 3 days before a trial ends and `invoice.upcoming` 3 days
before each renewal, each once, recorded through the outbox by the renewal job (and by the test clock, which runs
the same steps). Free trials chosen with crypto: nothing is paid on chain."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.subscriptions.support import DAY, advance, buy, club, customer, subscription, wait_for


def events_of(shop: httpx.Client, type_: str, sub_id: str) -> list[dict[str, Any]]:
    """Events of `type_` about the subscription (an upcoming invoice names it as subscription_id)."""
    found = ok(shop.get("/v1/events", params={"type": type_, "page_size": 100}))["events"]
    return [e for e in found
            if sub_id in (e["data"]["object"].get("id"), e["data"]["object"].get("subscription_id"))]


def start_trial(shop: httpx.Client, c: dict[str, Any], who: dict[str, Any], plan: str = "trial") -> dict[str, Any]:
    intent = buy(shop, c, who, plan=plan)
    ok(shop.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))
    return subscription(shop, intent["subscription"])


def test_trial_will_end_and_invoice_upcoming_are_sent_once_3_days_before_the_trial_ends(shop: httpx.Client) -> None:
    c, who = club(shop), customer(shop)
    sub = start_trial(shop, c, who)
    end = sub["trial_end"]
    advance(shop, sub["id"], end - 3 * DAY - 60)
    assert events_of(shop, "subscription.trial_will_end", sub["id"]) == []
    assert events_of(shop, "invoice.upcoming", sub["id"]) == []
    advance(shop, sub["id"], end - 3 * DAY + 60)
    [trial_ends] = events_of(shop, "subscription.trial_will_end", sub["id"])
    assert trial_ends["data"]["object"]["trial_end"] == end
    [upcoming] = events_of(shop, "invoice.upcoming", sub["id"])
    invoice = upcoming["data"]["object"]
    assert (invoice["id"], invoice["amount"], invoice["cycle_number"], invoice["period_start"]) == ("", "10.00", 1, end)
    advance(shop, sub["id"], end - DAY)  # later steps of the same period send nothing again
    assert len(events_of(shop, "subscription.trial_will_end", sub["id"])) == 1
    assert len(events_of(shop, "invoice.upcoming", sub["id"])) == 1


def test_a_trial_ending_in_a_scheduled_cancel_sends_trial_will_end_but_no_upcoming_invoice(
        shop: httpx.Client) -> None:
    c, who = club(shop), customer(shop)
    sub = start_trial(shop, c, who)
    ok(shop.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": True}))
    ended = advance(shop, sub["id"], sub["trial_end"] + 60)
    assert ended["status"] == "canceled"
    assert len(events_of(shop, "subscription.trial_will_end", sub["id"])) == 1
    assert events_of(shop, "invoice.upcoming", sub["id"]) == []  # nothing renews


def test_the_renewal_job_sends_the_notices_of_a_short_trial_once(shop: httpx.Client) -> None:
    """On the wall clock: a 2-day trial is already within 3 days of its end, so the job's next pass sends both
    notices; later passes send none again."""
    product = ok(shop.post("/v1/products", json={
        "name": "Tasting box", "default_currency": "USD",
        "variants": [{"price": {"amount": "5.00"}}],
        "selling_plans": [{"name": "Weekly, 2 days free", "billing_cycle": "week", "billing_cycle_interval": 1,
                           "trial_period_days": 2}]}))
    link = ok(shop.post("/v1/payment_links", json={
        "product_id": product["id"], "default_variant_id": product["variants"][0]["id"],
        "primary_variant_ids": [product["variants"][0]["id"]]}))
    ok(shop.post("/v1/webhook_endpoints", json={"url": "http://127.0.0.1:9/hooks",
                                                  "enabled_events": ["invoice.upcoming"]}))
    c = {"link": link, "small": product["variants"][0]["id"], "trial": product["selling_plans"][0]["id"]}
    sub = start_trial(shop, c, customer(shop))
    wait_for(lambda: {"n": len(events_of(shop, "invoice.upcoming", sub["id"]))}, lambda seen: seen["n"] == 1)
    time.sleep(12)  # two more passes of the job (every 5 seconds)
    [upcoming] = events_of(shop, "invoice.upcoming", sub["id"])
    [trial_ends] = events_of(shop, "subscription.trial_will_end", sub["id"])
    assert trial_ends["data"]["object"]["status"] == "active"
    # Written in the sweep's single flush, the event's webhook delivery was committed with it.
    assert ok(shop.get(f"/v1/events/{upcoming['id']}/deliveries"))["total"] >= 1
