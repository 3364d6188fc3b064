"""Pause behaviours across a period end, auto-resume, cancel now, cancel at period end and revoke-cancel."""

from __future__ import annotations

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.subscriptions.conftest import Inbox
from tests.e2e.subscriptions.support import DAY, advance, club, customer, invoices, mailed_intent, subscribe

# behaviour → (status, amount) of the invoice a paused period end creates
PAUSED_INVOICE = {"void": ("void", "10.00"), "keep_as_draft": ("draft", "10.00"),
                  "mark_uncollectible": ("uncollectible", "10.00"), "free": ("paid", "0")}


@pytest.mark.parametrize("behavior", list(PAUSED_INVOICE))
def test_a_paused_period_end_creates_the_invoice_its_behaviour_names(
        shop: httpx.Client, chain: Chain, inbox: Inbox, behavior: str) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    paused = ok(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={"behavior": behavior}))
    assert (paused["status"], paused["pause_collection_behavior"], paused["resumes_at"]) == ("paused", behavior, None)
    assert paused["paused_at"] is not None and paused["next_charge_amount"] == "0"
    after = advance(shop, sub["id"], sub["current_period_end"] + 60)
    assert (after["status"], after["current_cycle_number"]) == ("paused", 2)
    assert after["current_period_start"] == sub["current_period_end"]
    second = invoices(shop, sub["id"])[-1]
    assert (second["status"], second["amount"], second["cycle_number"]) == (*PAUSED_INVOICE[behavior], 2)
    assert second["payment_intent_id"] == "" and second["payment_url"] is None
    assert inbox.to(who["email"]) == []  # nothing is collected while paused


def test_a_paused_subscription_resumes_by_itself_at_resumes_at(
        shop: httpx.Client, chain: Chain, inbox: Inbox) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    resumes_at = sub["current_period_start"] + 10 * DAY
    ok(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={"behavior": "void", "resumes_at": resumes_at}))
    resumed = advance(shop, sub["id"], resumes_at + 60)
    assert (resumed["status"], resumed["paused_at"], resumed["pause_collection_behavior"], resumed["resumes_at"]) == (
        "active", None, None, None)
    assert (resumed["current_period_start"], resumed["current_cycle_number"]) == (resumes_at, 2)
    invoice = invoices(shop, sub["id"])[-1]
    assert (invoice["status"], invoice["period_start"], invoice["cycle_number"]) == ("open", resumes_at, 2)
    assert mailed_intent(inbox, who["email"], 1)[1] == invoice["payment_intent_id"]


def test_a_draft_kept_while_paused_is_never_collected_not_even_on_resume(
        shop: httpx.Client, chain: Chain, inbox: Inbox) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    ok(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={"behavior": "keep_as_draft"}))
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    draft = invoices(shop, sub["id"])[-1]
    assert (draft["status"], draft["cycle_number"]) == ("draft", 2)
    resumed = ok(shop.post(f"/v1/subscriptions/{sub['id']}/resume", json={}))
    assert resumed["status"] == "active"
    advance(shop, sub["id"], resumed["current_period_start"] + DAY)
    kept = ok(shop.get(f"/v1/invoices/{draft['id']}"))
    assert (kept["status"], kept["payment_intent_id"], kept["payment_url"]) == ("draft", "", None)
    collected = invoices(shop, sub["id"])[-1]
    assert collected["id"] != draft["id"] and collected["status"] == "open"
    assert mailed_intent(inbox, who["email"], 1)[1] == collected["payment_intent_id"]  # the only mail: the new period's


def test_pause_needs_an_active_subscription_and_a_future_resumes_at(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    fails(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={"behavior": "void", "resumes_at": 1}),
          400, "parameter_invalid", "resumes_at")
    fails(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={}), 400, "parameter_missing", "behavior")
    fails(shop.post(f"/v1/subscriptions/{sub['id']}/resume", json={}), 409, "subscription_not_paused")
    ok(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={"behavior": "free"}))
    fails(shop.post(f"/v1/subscriptions/{sub['id']}/pause", json={"behavior": "free"}), 409,
          "subscription_already_paused")
    resumed = ok(shop.post(f"/v1/subscriptions/{sub['id']}/resume", json={}))
    assert (resumed["status"], resumed["paused_at"]) == ("active", None)


def test_cancel_now_ends_the_subscription_and_everything_after_is_refused(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    gone = ok(shop.post(f"/v1/subscriptions/{sub['id']}/cancel",
                        json={"cancel_at_period_end": False, "cancel_reason": "moved away"}))
    assert (gone["status"], gone["cancel_reason"]) == ("canceled", "moved away") and gone["canceled_at"]
    for path, body in [("cancel", {}), ("pause", {"behavior": "void"}), ("resume", {}), ("revoke-cancel", {})]:
        fails(shop.post(f"/v1/subscriptions/{sub['id']}/{path}", json=body), 409, "subscription_already_canceled")
    fails(shop.post(f"/v1/subscriptions/{sub['id']}", json={"primary_variant": {"selling_plan_id": c["monthly"]}}),
          409, "subscription_already_canceled")


def test_cancel_at_period_end_keeps_it_active_until_the_period_ends(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    scheduled = ok(shop.post(f"/v1/subscriptions/{sub['id']}/cancel", json={}))
    assert (scheduled["status"], scheduled["cancel_at_period_end"]) == ("active", True)
    assert scheduled["canceled_at"] is not None and scheduled["next_charge_amount"] == "0"
    ended = advance(shop, sub["id"], sub["current_period_end"] + 60)
    assert ended["status"] == "canceled"
    assert [i["billing_reason"] for i in invoices(shop, sub["id"])] == ["subscription_create"]


def test_revoke_cancel_clears_a_scheduled_cancel_and_the_subscription_renews(shop: httpx.Client, chain: Chain) -> None:
    c, who = club(shop), customer(shop)
    sub = subscribe(shop, chain, c, who)
    fails(shop.post(f"/v1/subscriptions/{sub['id']}/revoke-cancel", json={}), 409, "subscription_not_active")
    ok(shop.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": True}))
    revoked = ok(shop.post(f"/v1/subscriptions/{sub['id']}/revoke-cancel", json={}))
    assert (revoked["cancel_at_period_end"], revoked["canceled_at"], revoked["cancel_reason"]) == (False, None, None)
    renewed = advance(shop, sub["id"], sub["current_period_end"] + 60)
    assert renewed["status"] == "active"
    assert [i["billing_reason"] for i in invoices(shop, sub["id"])] == ["subscription_create", "subscription_cycle"]
