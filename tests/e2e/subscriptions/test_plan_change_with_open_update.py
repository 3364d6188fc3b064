"""A plan change that applies now opens an invoice for the new plan's share of the period. While that invoice is
unpaid, a second immediate change would credit time on a plan nobody paid for (and, after a reset, leave the first
invoice billing a period that no longer exists): it is refused (409 subscription_invoice_open, naming the invoice)
until the first is paid or voided. A change deferred to the period end stays allowed."""

from __future__ import annotations

from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.subscriptions.support import club, customer, invoices, pay, subscribe, subscription, wait_for


def upgraded(shop: httpx.Client, chain: Chain) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(the club, a subscription upgraded now from 250g to 1kg, that change's open invoice)."""
    c = club(shop)
    sub = subscribe(shop, chain, c, customer(shop))
    changed = ok(shop.post(f"/v1/subscriptions/{sub['id']}", json={
        "primary_variant": {"selling_plan_id": c["monthly"], "variant_id": c["large"]},
        "proration_date": sub["current_period_start"]}))
    invoice = ok(shop.get(f"/v1/invoices/{changed['invoice_id']}"))
    assert (invoice["billing_reason"], invoice["status"]) == ("subscription_update", "open")
    return c, changed, invoice


def two_large(c: dict[str, Any]) -> dict[str, Any]:
    return {"primary_variant": {"selling_plan_id": c["monthly"], "variant_id": c["large"], "quantity": 2}}


def test_a_second_immediate_change_while_the_first_ones_invoice_is_open_is_refused_and_bills_nothing(
        shop: httpx.Client, chain: Chain) -> None:
    c, sub, invoice = upgraded(shop, chain)
    before = invoices(shop, sub["id"])

    body = fails(shop.post(f"/v1/subscriptions/{sub['id']}", json=two_large(c)), 409, "subscription_invoice_open")

    assert invoice["id"] in body["msg"] and "subscription_update" in body["msg"]
    assert invoices(shop, sub["id"]) == before
    after = subscription(shop, sub["id"])
    assert (after["variant_id"], after["quantity"], after["current_cycle_number"]) == (
        c["large"], 1, sub["current_cycle_number"])


def test_its_preview_is_refused_the_same_way(shop: httpx.Client, chain: Chain) -> None:
    c, sub, _ = upgraded(shop, chain)

    fails(shop.post(f"/v1/subscriptions/{sub['id']}/preview", json=two_large(c)), 409, "subscription_invoice_open")


def test_a_change_deferred_to_the_period_end_stays_allowed(shop: httpx.Client, chain: Chain) -> None:
    c, sub, _ = upgraded(shop, chain)

    deferred = ok(shop.post(f"/v1/subscriptions/{sub['id']}", json={
        "primary_variant": {"selling_plan_id": c["monthly"], "variant_id": c["small"]}}))

    assert deferred["applied"] is False and deferred["pending_update"]["target_variant_id"] == c["small"]
    assert [i["billing_reason"] for i in invoices(shop, sub["id"])].count("subscription_update") == 1


def test_the_second_change_goes_through_once_the_first_ones_invoice_is_paid(shop: httpx.Client, chain: Chain) -> None:
    c, sub, invoice = upgraded(shop, chain)
    pay(shop, chain, invoice["payment_intent_id"])
    wait_for(lambda: ok(shop.get(f"/v1/invoices/{invoice['id']}")), lambda i: i["status"] == "paid")

    changed = ok(shop.post(f"/v1/subscriptions/{sub['id']}", json=two_large(c)))

    assert (changed["applied"], changed["quantity"]) == (True, 2)
