"""The credit for unused time on the old plan is what was paid for the current period (DESIGN §8): a free trial, or
a period whose invoice was voided, earns no credit; the upgrade is charged in full."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.cards.support import DECLINED, SUCCEEDS
from tests.e2e.subscriptions import test_card_renewals as card_renewals
from tests.e2e.subscriptions.support import advance, buy, club, customer, invoices, subscription
from tests.e2e.subscriptions.test_card_renewals import card_subscription, pay_by_card
from tests.localstripe import LocalStripe

# The card renewals' fixtures: localstripe as provider_a, paygate on SQLite and PostgreSQL, a merchant with keys.
localstripe = card_renewals.localstripe
paygate = card_renewals.paygate
card_shop = card_renewals.card_shop


def _in_a_free_trial(card_shop: tuple[httpx.Client, str], localstripe: LocalStripe
                     ) -> tuple[httpx.Client, dict[str, Any], dict[str, Any]]:
    """(the shop, its club of plans, a subscription bought on the trial plan and paid by card: in its free trial)."""
    shop, pk = card_shop
    c, who = club(shop), customer(shop)
    intent = buy(shop, c, who, plan="trial")
    pay_by_card(shop, intent["id"], localstripe.tokenize(pk, SUCCEEDS))
    return shop, c, subscription(shop, intent["subscription"])


def test_an_immediate_upgrade_during_a_free_trial_credits_nothing_and_charges_the_full_new_price(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, c, sub = _in_a_free_trial(card_shop, localstripe)
    assert sub["current_cycle_number"] == 0
    changed = ok(shop.post(f"/v1/subscriptions/{sub['id']}", json={
        "primary_variant": {"selling_plan_id": c["trial"], "variant_id": c["large"]},
        "proration_behavior": "always_invoice", "billing_cycle_anchor": "now",
        "proration_date": sub["current_period_start"]}))
    details = changed["proration_details"]
    assert (details["credited_amount"], details["charged_amount"], details["net_amount"]) == ("0.00", "20.00", "20.00")
    assert (changed["proration_credit"], changed["charge_today"]) == ("0.00", "20.00")
    inv = ok(shop.get(f"/v1/invoices/{changed['invoice_id']}"))
    assert [line["amount"] for line in inv["lines"]] == ["20.00"]
    assert (inv["amount"], inv["status"], inv["amount_paid"]) == ("20.00", "paid", "20.00")


def test_an_upgrade_keeping_the_cycle_during_a_free_trial_charges_nothing_until_the_trial_ends(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, c, sub = _in_a_free_trial(card_shop, localstripe)
    changed = ok(shop.post(f"/v1/subscriptions/{sub['id']}", json={
        "primary_variant": {"selling_plan_id": c["trial"], "variant_id": c["large"]},
        "proration_behavior": "always_invoice", "billing_cycle_anchor": "unchanged"}))
    details = changed["proration_details"]
    assert (details["credited_amount"], details["charged_amount"], changed["charge_today"]) == (
        "0.00", "0.00", "0.00")
    assert (changed["variant_id"], changed["trial_end"]) == (c["large"], sub["trial_end"])
    advance(shop, sub["id"], sub["trial_end"] + 60)
    first = invoices(shop, sub["id"])[-1]
    assert (first["billing_reason"], first["amount"], first["status"]) == ("subscription_cycle", "20.00", "paid")


def test_an_upgrade_after_the_period_invoice_was_voided_credits_nothing(
        card_shop: tuple[httpx.Client, str], localstripe: LocalStripe) -> None:
    shop, pk = card_shop
    sub = card_subscription(shop, localstripe, pk, plan="trial", number=DECLINED)
    advance(shop, sub["id"], sub["trial_end"] + 60)
    ok(shop.post(f"/v1/invoices/{invoices(shop, sub['id'])[-1]['id']}/void", json={}))
    moved_on = subscription(shop, sub["id"])
    assert (moved_on["current_cycle_number"], moved_on["current_period_start"]) == (1, sub["trial_end"])
    large = next(v["id"] for v in ok(shop.get(f"/v1/products/{moved_on['product_id']}"))["variants"]
                 if v["price"]["amount"] == "20.00")
    preview = ok(shop.post(f"/v1/subscriptions/{sub['id']}/preview", json={
        "primary_variant": {"selling_plan_id": moved_on["selling_plan_id"], "variant_id": large},
        "proration_date": moved_on["current_period_start"]}))
    details = preview["proration_details"]
    assert (details["credited_amount"], details["charged_amount"], details["net_amount"]) == ("0.00", "20.00", "20.00")
