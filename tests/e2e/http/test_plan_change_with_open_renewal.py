"""A plan change that applies now prices the current period; while the renewal invoice of the next one is still open
(the period has not moved on yet), it would bill that period twice. It is refused (409
subscription_invoice_open) until the invoice is settled or voided; a change deferred to the period end stays
allowed."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.test_products_in_use import start_trial, trial_product


def renewal_open(api: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the product, a subscription whose 1-day trial ended an hour ago: its cycle 1 invoice is open)."""
    c = trial_product(api, days=1)
    sub = start_trial(api, c)
    ok(api.post(f"/v1/subscriptions/{sub['id']}/test_clock/advance", json={"to": sub["trial_end"] + 3600}))
    renewal = invoices(api, sub["id"])[0]
    assert (renewal["billing_reason"], renewal["status"]) == ("subscription_cycle", "open")
    return c, sub


def invoices(api: httpx.Client, sub_id: str) -> list[dict[str, Any]]:
    return ok(api.get("/v1/invoices", params={"subscription_id": sub_id, "limit": 100}))["data"]  # type: ignore


def upgrade(c: dict[str, Any]) -> dict[str, Any]:
    return {"primary_variant": {"selling_plan_id": c["plan"], "variant_id": c["big"], "quantity": 2}}


def test_an_immediate_plan_change_while_the_renewal_invoice_is_open_is_refused_and_bills_nothing(api):
    c, sub = renewal_open(api)
    before = invoices(api, sub["id"])

    body = fails(api.post(f"/v1/subscriptions/{sub['id']}", json=upgrade(c)), 409, "subscription_invoice_open")

    assert before[0]["id"] in body["msg"]
    assert invoices(api, sub["id"]) == before
    after = ok(api.get(f"/v1/subscriptions/{sub['id']}"))
    assert (after["quantity"], after["variant_id"], after["pending_update"]) == (1, c["big"], None)


def test_the_preview_of_an_immediate_change_is_refused_the_same_way(api):
    c, sub = renewal_open(api)

    fails(api.post(f"/v1/subscriptions/{sub['id']}/preview", json=upgrade(c)), 409, "subscription_invoice_open")


def test_a_change_deferred_to_the_period_end_stays_allowed_while_the_renewal_is_open(api):
    c, sub = renewal_open(api)

    changed = ok(api.post(f"/v1/subscriptions/{sub['id']}", json={
        "primary_variant": {"selling_plan_id": c["plan"], "variant_id": c["small"]}}))

    assert changed["applied"] is False and changed["pending_update"]["target_variant_id"] == c["small"]
    assert [i["billing_reason"] for i in invoices(api, sub["id"])].count("subscription_update") == 0


def test_an_immediate_change_is_allowed_again_once_the_renewal_invoice_is_voided(api):
    c, sub = renewal_open(api)
    ok(api.post(f"/v1/invoices/{invoices(api, sub['id'])[0]['id']}/void", json={}))

    changed = ok(api.post(f"/v1/subscriptions/{sub['id']}", json=upgrade(c)))

    assert changed["applied"] is True
