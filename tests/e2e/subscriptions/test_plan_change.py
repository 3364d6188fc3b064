"""Plan changes through /v1: an upgrade charged now, a downgrade applied at the period end, the preview, and the
refusals of the matrix."""

from __future__ import annotations

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.subscriptions.support import (
    advance,
    club,
    customer,
    invoices,
    pay,
    subscribe,
    subscription,
    wait_for,
)


def test_an_upgrade_is_charged_now_less_the_unused_time_and_resets_the_cycle(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    body = {"primary_variant": {"selling_plan_id": c["monthly"], "variant_id": c["large"]},
            "proration_date": sub["current_period_start"]}
    preview = ok(shop.post(f"/v1/subscriptions/{sub['id']}/preview", json=body))
    assert (preview["applied"], preview["is_upgrade"], preview["proration_credit"], preview["charge_today"]) == (
        False, True, "10.00", "10.00")
    assert subscription(shop, sub["id"])["variant_id"] == c["small"]  # a preview changes nothing
    changed = ok(shop.post(f"/v1/subscriptions/{sub['id']}", json=body))
    assert (changed["applied"], changed["variant_id"], changed["charge_today"]) == (True, c["large"], "10.00")
    details = changed["proration_details"]
    assert (details["credited_amount"], details["charged_amount"], details["net_amount"]) == ("10.00", "20.00", "10.00")
    assert (details["current_price"], details["target_price"]) == ("10.00", "20.00")
    assert changed["current_period_start"] == sub["current_period_start"] and changed["current_cycle_number"] == 2
    invoice = ok(shop.get(f"/v1/invoices/{changed['invoice_id']}"))
    assert (invoice["billing_reason"], invoice["status"], invoice["amount"]) == ("subscription_update", "open",
                                                                                 "10.00")
    pay(shop, chain, invoice["payment_intent_id"])
    wait_for(lambda: ok(shop.get(f"/v1/invoices/{invoice['id']}")), lambda i: i["status"] == "paid")
    assert subscription(shop, sub["id"])["status"] == "active"


def test_a_downgrade_waits_for_the_period_end_and_then_renews_at_the_lower_price(
        shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who, variant="large")
    changed = ok(shop.post(f"/v1/subscriptions/{sub['id']}",
                           json={"primary_variant": {"selling_plan_id": c["monthly"], "variant_id": c["small"]}}))
    assert (changed["applied"], changed["is_upgrade"], changed["charge_today"]) == (False, False, "0")
    pending = changed["pending_update"]
    assert (pending["target_variant_id"], pending["change_type"], pending["effective_date"]) == (
        c["small"], "downgrade", sub["current_period_end"])
    assert (pending["next_charge_amount"], changed["next_charge_amount"]) == ("10.00", "10.00")
    assert changed["variant_id"] == c["large"]
    renewed = advance(shop, sub["id"], sub["current_period_end"] + 60)
    assert (renewed["variant_id"], renewed["pending_update"]) == (c["small"], None)
    assert invoices(shop, sub["id"])[-1]["amount"] == "10.00"


def test_the_matrix_refuses_a_downgrade_charged_now(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who, variant="large")
    down = {"primary_variant": {"selling_plan_id": c["monthly"], "variant_id": c["small"]}}
    for behavior, anchor in [("always_invoice", "unchanged"), ("create_prorations", "unchanged"), ("none", "now")]:
        fails(shop.post(f"/v1/subscriptions/{sub['id']}",
                        json={**down, "proration_behavior": behavior, "billing_cycle_anchor": anchor}),
              400, "invalid_proration_config")
    fails(shop.post(f"/v1/subscriptions/{sub['id']}", json={**down, "proration_date": 1}), 400, "parameter_invalid",
          "proration_date")
    fails(shop.post(f"/v1/subscriptions/{sub['id']}", json={"primary_variant": {"selling_plan_id": "sp_nope"}}),
          400, "parameter_invalid", "primary_variant.selling_plan_id")


def test_a_higher_tier_monthly_to_a_lower_tier_yearly_is_deferred_but_never_charged_with_unchanged(
        shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who, variant="large")  # 20 a month; a year of it at 20 % off: 16
    body = {"primary_variant": {"selling_plan_id": c["yearly"], "variant_id": c["large"]},
            "billing_cycle_anchor": "unchanged"}
    fails(shop.post(f"/v1/subscriptions/{sub['id']}", json={**body, "proration_behavior": "always_invoice"}),
          400, "invalid_proration_config")
    deferred = ok(shop.post(f"/v1/subscriptions/{sub['id']}", json={**body, "proration_behavior": "create_prorations"}))
    assert (deferred["applied"], deferred["is_upgrade"], deferred["charge_today"]) == (False, True, "0")
    assert deferred["pending_update"]["next_charge_amount"] == "16.00"
    renewed = advance(shop, sub["id"], sub["current_period_end"] + 60)
    assert (renewed["selling_plan_id"], renewed["pending_update"]) == (c["yearly"], None)
    last = invoices(shop, sub["id"])[-1]
    assert (last["amount"], last["period_start"]) == ("16.00", sub["current_period_end"])
    assert last["period_end"] - last["period_start"] >= 365 * 86_400
