"""A product update never takes away what subscriptions and open purchases stand on: the selling plan and the variant
a subscription bills (or a scheduled plan change moves to), those an unpaid purchase chose, and the currency their
prices are in. Such an update is refused (400 parameter_invalid naming the field, like a variant a payment link
sells) and changes nothing; the merchant can set a variant inactive instead."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.conftest import fails, ok


def trial_product(api: httpx.Client, days: int = 30) -> dict[str, Any]:
    """A box at 5.00 (and a small one at 3.00) USD on a weekly plan with a free trial, sold by a payment link."""
    product = ok(api.post("/v1/products", json={
        "name": "Box", "default_currency": "USD",
        "options": [{"name": "Size", "values": [{"value": "Big"}, {"value": "Small"}]}],
        "variants": [{"option_values": {"Size": "Big"}, "price": {"amount": "5.00"}},
                     {"option_values": {"Size": "Small"}, "price": {"amount": "3.00"}}],
        "selling_plans": [{"name": "Weekly", "billing_cycle": "week", "billing_cycle_interval": 1,
                           "trial_period_days": days}]}))
    variants = [v["id"] for v in product["variants"]]
    link = ok(api.post("/v1/payment_links", json={
        "product_id": product["id"], "default_variant_id": variants[0], "primary_variant_ids": variants}))
    return {"product": product, "link": link, "big": variants[0], "small": variants[1],
            "plan": product["selling_plans"][0]["id"]}


def open_purchase(api: httpx.Client, c: dict[str, Any], *, plan: bool = True) -> dict[str, Any]:
    """An intent for the big box (on the plan, or bought once), no payment method chosen yet."""
    who = ok(api.post("/v1/customers", json={"name": "Ann", "email": f"a{time.time_ns()}@example.com"}))
    choice = {"variant_id": c["big"], **({"selling_plan_id": c["plan"]} if plan else {})}
    return ok(api.post("/v1/payment_intents", json={  # type: ignore[no-any-return]
        "payment_link_id": c["link"]["id"], "customer": who["id"], "primary_variant": choice}))


def complete(api: httpx.Client, intent_id: str) -> dict[str, Any]:
    return ok(api.post(f"/v1/payment_intents/{intent_id}", json={  # type: ignore[no-any-return]
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))


def start_trial(api: httpx.Client, c: dict[str, Any]) -> dict[str, Any]:
    """A subscription in its free trial (choosing a payment method for 0 completes the purchase)."""
    intent = open_purchase(api, c)
    complete(api, intent["id"])
    sub = ok(api.get(f"/v1/subscriptions/{intent['subscription']}"))
    assert sub["status"] == "active", sub
    return sub  # type: ignore[no-any-return]


def drop_link(api: httpx.Client, c: dict[str, Any]) -> None:
    """Deactivate and delete the product's payment link: no link sells its variants any more."""
    ok(api.post(f"/v1/payment_links/{c['link']['id']}", json={"active": False}))
    assert api.delete(f"/v1/payment_links/{c['link']['id']}").status_code == 200


def unchanged(api: httpx.Client, c: dict[str, Any]) -> None:
    product = ok(api.get(f"/v1/products/{c['product']['id']}"))
    before = c["product"]
    assert product["version"] == before["version"], product
    assert product["default_currency"] == before["default_currency"]
    assert [v["id"] for v in product["variants"]] == [v["id"] for v in before["variants"]]
    assert [v["price"] for v in product["variants"]] == [v["price"] for v in before["variants"]]
    assert [p["id"] for p in product["selling_plans"]] == [p["id"] for p in before["selling_plans"]]


def only_big(c: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """An update keeping the big box only (the small one removed)."""
    return {"variants": [{"id": c["big"], "option_values": {"Size": "Big"}, "price": {"amount": "5.00"}}], **fields}


# ---------------------------------------------------------------- selling plans


def test_removing_a_selling_plan_a_subscription_uses_is_refused_and_changes_nothing(api):
    c = trial_product(api)
    sub = start_trial(api, c)

    body = fails(api.patch(f"/v1/products/{c['product']['id']}", json={"selling_plans": []}),
                 400, "parameter_invalid", "selling_plans")

    assert c["plan"] in body["msg"] and sub["id"] in body["msg"]
    unchanged(api, c)
    assert ok(api.get(f"/v1/subscriptions/{sub['id']}"))["selling_plan_id"] == c["plan"]
    assert ok(api.get("/v1/subscriptions"))["total"] >= 1


def test_removing_a_selling_plan_of_a_canceled_subscription_is_refused_too_since_the_subscription_still_shows_it(api):
    c = trial_product(api)
    sub = start_trial(api, c)
    ok(api.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": False}))

    fails(api.patch(f"/v1/products/{c['product']['id']}", json={"selling_plans": []}),
          400, "parameter_invalid", "selling_plans")

    assert ok(api.get(f"/v1/subscriptions/{sub['id']}"))["status"] == "canceled"


def test_removing_a_selling_plan_an_open_purchase_chose_is_refused_and_the_purchase_still_completes(api):
    c = trial_product(api)
    intent = open_purchase(api, c)

    fails(api.patch(f"/v1/products/{c['product']['id']}", json={"selling_plans": []}),
          400, "parameter_invalid", "selling_plans")

    unchanged(api, c)
    complete(api, intent["id"])
    assert ok(api.get(f"/v1/subscriptions/{intent['subscription']}"))["status"] == "active"


def test_a_selling_plan_nothing_uses_can_still_be_removed(api):
    c = trial_product(api)

    product = ok(api.patch(f"/v1/products/{c['product']['id']}", json={"selling_plans": []}))

    assert product["selling_plans"] == []


# ---------------------------------------------------------------- variants


def test_removing_a_variant_a_subscription_uses_is_refused_once_no_payment_link_sells_it(api):
    c = trial_product(api)
    sub = start_trial(api, c)
    drop_link(api, c)

    body = fails(api.patch(f"/v1/products/{c['product']['id']}", json={
        "variants": [{"id": c["small"], "option_values": {"Size": "Small"}, "price": {"amount": "3.00"}}]}),
        400, "parameter_invalid", "variants")

    assert c["big"] in body["msg"] and sub["id"] in body["msg"]
    unchanged(api, c)
    assert ok(api.get(f"/v1/subscriptions/{sub['id']}"))["variant_id"] == c["big"]


def test_removing_the_variant_a_scheduled_plan_change_moves_to_is_refused(api):
    c = trial_product(api)
    sub = start_trial(api, c)
    changed = ok(api.post(f"/v1/subscriptions/{sub['id']}", json={
        "primary_variant": {"selling_plan_id": c["plan"], "variant_id": c["small"]}}))
    assert changed["applied"] is False and changed["pending_update"]["target_variant_id"] == c["small"]
    drop_link(api, c)

    fails(api.patch(f"/v1/products/{c['product']['id']}", json=only_big(c)), 400, "parameter_invalid", "variants")

    unchanged(api, c)


def test_removing_a_variant_an_open_purchase_bought_is_refused_once_no_payment_link_sells_it(api):
    c = trial_product(api)
    intent = open_purchase(api, c, plan=False)
    drop_link(api, c)

    fails(api.patch(f"/v1/products/{c['product']['id']}", json={
        "variants": [{"id": c["small"], "option_values": {"Size": "Small"}, "price": {"amount": "3.00"}}]}),
        400, "parameter_invalid", "variants")

    unchanged(api, c)
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["status"] == "RequiresPaymentMethod"


def test_a_subscribed_variant_can_still_be_set_inactive(api):
    c = trial_product(api)
    sub = start_trial(api, c)

    product = ok(api.patch(f"/v1/products/{c['product']['id']}", json={"variants": [
        {"id": c["big"], "option_values": {"Size": "Big"}, "price": {"amount": "5.00"}, "active": False},
        {"id": c["small"], "option_values": {"Size": "Small"}, "price": {"amount": "3.00"}}]}))

    assert product["variants"][0]["active"] is False
    assert ok(api.get(f"/v1/subscriptions/{sub['id']}"))["variant_id"] == c["big"]


def test_a_variant_nothing_uses_can_still_be_removed(api):
    c = trial_product(api)
    start_trial(api, c)
    drop_link(api, c)

    product = ok(api.patch(f"/v1/products/{c['product']['id']}", json=only_big(c)))

    assert [v["id"] for v in product["variants"]] == [c["big"]]


# ---------------------------------------------------------------- default_currency


def eth_prices(c: dict[str, Any]) -> dict[str, Any]:
    return {"default_currency": "ETH-ETH-TEST", "variants": [
        {"id": c["big"], "option_values": {"Size": "Big"}, "price": {"amount": "0.002"}},
        {"id": c["small"], "option_values": {"Size": "Small"}, "price": {"amount": "0.001"}}]}


def test_changing_default_currency_while_a_subscription_is_live_is_refused_and_its_renewal_is_billed_as_before(api):
    c = trial_product(api, days=1)
    sub = start_trial(api, c)

    body = fails(api.patch(f"/v1/products/{c['product']['id']}", json=eth_prices(c)),
                 400, "parameter_invalid", "default_currency")

    assert sub["id"] in body["msg"]
    unchanged(api, c)
    ok(api.post(f"/v1/subscriptions/{sub['id']}/test_clock/advance", json={"to": sub["trial_end"] + 60}))
    renewal = ok(api.get("/v1/invoices", params={"subscription_id": sub["id"], "limit": 100}))["data"][0]
    assert (renewal["billing_reason"], renewal["amount"], renewal["currency"], renewal["status"]) == (
        "subscription_cycle", "5.00", "USD", "open")


def test_changing_default_currency_while_a_purchase_is_open_is_refused(api):
    c = trial_product(api)
    open_purchase(api, c, plan=False)

    fails(api.patch(f"/v1/products/{c['product']['id']}", json=eth_prices(c)),
          400, "parameter_invalid", "default_currency")

    unchanged(api, c)


def test_default_currency_can_change_once_every_subscription_is_canceled(api):
    c = trial_product(api)
    sub = start_trial(api, c)
    ok(api.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": False}))

    product = ok(api.patch(f"/v1/products/{c['product']['id']}", json=eth_prices(c)))

    assert product["default_currency"] == "ETH-ETH-TEST"
    assert ok(api.get(f"/v1/subscriptions/{sub['id']}"))["status"] == "canceled"


def test_prices_can_still_change_in_the_same_currency_while_subscribed(api):
    c = trial_product(api)
    start_trial(api, c)

    product = ok(api.patch(f"/v1/products/{c['product']['id']}", json={"default_currency": "USD", "variants": [
        {"id": c["big"], "option_values": {"Size": "Big"}, "price": {"amount": "6.00"}},
        {"id": c["small"], "option_values": {"Size": "Small"}, "price": {"amount": "3.00"}}]}))

    assert product["variants"][0]["price"]["amount"] == "6.00"


# ---------------------------------------------------------------- delete


def test_deleting_a_product_with_a_subscription_is_refused_even_once_its_link_is_gone(api):
    c = trial_product(api)
    sub = start_trial(api, c)
    ok(api.post(f"/v1/subscriptions/{sub['id']}/cancel", json={"cancel_at_period_end": False}))
    drop_link(api, c)

    body = fails(api.delete(f"/v1/products/{c['product']['id']}"), 409, "product_in_use")

    assert sub["id"] in body["msg"]
    unchanged(api, c)
    assert ok(api.get(f"/v1/subscriptions/{sub['id']}"))["status"] == "canceled"
