"""Resuming a subscription that was paused while its renewal invoice was unpaid (DESIGN §8: on resume a new period
starts at the resume time, whose invoice is issued and collected at once). That invoice takes the next cycle number
after every cycle invoiced so far: the unpaid renewal's cycle is not issued twice, and that invoice stays as the
pause left it (voided by a `void` pause; left open by `keep_as_draft`, which acts only on the period ends while
paused). Manual resume and auto-resume (`resumes_at`, run here by the test clock, the scheduler's own step)."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.conftest import ok

WEEK = 7 * 86_400


def trial_product(api: httpx.Client) -> dict[str, Any]:
    """A 5.00 USD box on a weekly plan with a 1-day trial, and its payment link."""
    product = ok(api.post("/v1/products", json={
        "name": "Box", "default_currency": "USD", "variants": [{"price": {"amount": "5.00"}}],
        "selling_plans": [{"name": "Weekly", "billing_cycle": "week", "billing_cycle_interval": 1,
                           "trial_period_days": 1}]}))
    link = ok(api.post("/v1/payment_links", json={
        "product_id": product["id"], "default_variant_id": product["variants"][0]["id"],
        "primary_variant_ids": [product["variants"][0]["id"]]}))
    return {"product": product, "link": link}


def start_trial(api: httpx.Client) -> dict[str, Any]:
    """A trial subscription, active at once: crypto chosen on an amount of 0 pays it without a chain."""
    c = trial_product(api)
    who = ok(api.post("/v1/customers", json={"name": "Ann", "email": f"a{time.time_ns()}@example.com"}))
    intent = ok(api.post("/v1/payment_intents", json={
        "payment_link_id": c["link"]["id"], "customer": who["id"],
        "primary_variant": {"variant_id": c["product"]["variants"][0]["id"],
                            "selling_plan_id": c["product"]["selling_plans"][0]["id"]}}))
    ok(api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))
    sub = ok(api.get(f"/v1/subscriptions/{intent['subscription']}"))
    assert sub["status"] == "active", sub
    return sub  # type: ignore[no-any-return]


def renewed_unpaid(api: httpx.Client) -> tuple[str, int]:
    """A subscription whose trial ended a minute ago on its test clock: its cycle-1 invoice is open, unpaid; and
    that clock's time."""
    sub = start_trial(api)
    at = sub["trial_end"] + 60
    sub = ok(api.post(f"/v1/subscriptions/{sub['id']}/test_clock/advance", json={"to": at}))
    assert cycle_invoices(api, sub["id"]) == [(1, "open")]
    return str(sub["id"]), at


def invoices(api: httpx.Client, sub_id: str) -> list[dict[str, Any]]:
    """The subscription's renewal invoices, oldest first."""
    data = ok(api.get("/v1/invoices", params={"subscription_id": sub_id, "limit": 100}))["data"]
    return [i for i in reversed(data) if i["billing_reason"] == "subscription_cycle"]


def cycle_invoices(api: httpx.Client, sub_id: str) -> list[tuple[int, str]]:
    return [(i["cycle_number"], i["status"]) for i in invoices(api, sub_id)]


def assert_new_period(api: httpx.Client, sub_id: str, at: int) -> dict[str, Any]:
    """The subscription is active in a period starting at `at`, billed by a cycle-2 invoice for that period; that
    invoice."""
    sub = ok(api.get(f"/v1/subscriptions/{sub_id}"))
    assert sub["status"] == "active", sub
    assert (sub["current_period_start"], sub["current_period_end"]) == (at, at + WEEK)
    assert sub["current_cycle_number"] == 2
    new = invoices(api, sub_id)[-1]
    assert (new["cycle_number"], new["status"], new["amount"]) == (2, "open", "5.00")
    assert (new["period_start"], new["period_end"]) == (at, at + WEEK)
    assert sub["latest_invoice_id"] == new["id"]
    return sub


def test_resume_after_a_void_pause_with_an_unpaid_renewal_starts_a_new_period(api: httpx.Client) -> None:
    sub_id, at = renewed_unpaid(api)
    ok(api.post(f"/v1/subscriptions/{sub_id}/pause", json={"behavior": "void"}))
    ok(api.post(f"/v1/subscriptions/{sub_id}/resume", json={}))
    assert_new_period(api, sub_id, at)
    assert cycle_invoices(api, sub_id) == [(1, "void"), (2, "open")]


def test_resume_after_a_keep_as_draft_pause_with_an_unpaid_renewal_starts_a_new_period(api: httpx.Client) -> None:
    sub_id, at = renewed_unpaid(api)
    ok(api.post(f"/v1/subscriptions/{sub_id}/pause", json={"behavior": "keep_as_draft"}))
    ok(api.post(f"/v1/subscriptions/{sub_id}/resume", json={}))
    assert_new_period(api, sub_id, at)
    assert cycle_invoices(api, sub_id) == [(1, "open"), (2, "open")]


def test_auto_resume_after_a_pause_with_an_unpaid_renewal_starts_a_new_period(api: httpx.Client) -> None:
    sub_id, at = renewed_unpaid(api)
    ok(api.post(f"/v1/subscriptions/{sub_id}/pause", json={"behavior": "void", "resumes_at": at + 3600}))
    sub = ok(api.post(f"/v1/subscriptions/{sub_id}/test_clock/advance", json={"to": at + 7200}))
    assert sub["resumes_at"] is None and sub["paused_at"] is None
    assert_new_period(api, sub_id, at + 3600)
    assert cycle_invoices(api, sub_id) == [(1, "void"), (2, "open")]


def test_a_second_pause_and_resume_before_paying_takes_the_cycle_after(api: httpx.Client) -> None:
    sub_id, _ = renewed_unpaid(api)
    for _ in range(2):
        ok(api.post(f"/v1/subscriptions/{sub_id}/pause", json={"behavior": "void"}))
        ok(api.post(f"/v1/subscriptions/{sub_id}/resume", json={}))
    assert ok(api.get(f"/v1/subscriptions/{sub_id}"))["current_cycle_number"] == 3
    assert cycle_invoices(api, sub_id) == [(1, "void"), (2, "void"), (3, "open")]
