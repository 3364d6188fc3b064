"""A disabled selling plan, or a plan of a disabled group, takes no new subscribers (DESIGN §17): a new purchase and
a plan change cannot choose it and the hosted checkout does not offer it, while the subscriptions it already bills
keep it."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.test_products_in_use import open_purchase, start_trial, trial_product


def _disable_plan(api: httpx.Client, plan_id: str) -> None:
    assert ok(api.post(f"/v1/selling_plans/{plan_id}", json={"status": "disabled"}))["status"] == "disabled"


def _group_of(api: httpx.Client, plan_id: str) -> str:
    return str(ok(api.get(f"/v1/selling_plans/{plan_id}"))["selling_plan_group_id"])


def _offered(anonymous: httpx.Client, c: dict[str, Any]) -> list[str]:
    page = ok(anonymous.get(f"/checkout/links/{c['link']['id']}"))
    return [p["id"] for v in page["primary_variants"] for p in v["selling_plans"]]


def test_a_disabled_plan_takes_no_new_purchase_but_the_product_is_still_sold_once(api: httpx.Client) -> None:
    c = trial_product(api)
    _disable_plan(api, c["plan"])

    fails(api.post("/v1/payment_intents", json={"payment_link_id": c["link"]["id"], "primary_variant": {
        "variant_id": c["big"], "selling_plan_id": c["plan"]}}), 400, "parameter_invalid",
        "primary_variant.selling_plan_id")

    assert open_purchase(api, c, plan=False)["status"] == "RequiresPaymentMethod"


def test_a_plan_of_a_disabled_group_takes_no_new_purchase(api: httpx.Client) -> None:
    c = trial_product(api)
    group = _group_of(api, c["plan"])
    ok(api.post(f"/v1/selling_plan_groups/{group}", json={"status": "disabled"}))

    body = fails(api.post("/v1/payment_intents", json={"payment_link_id": c["link"]["id"], "primary_variant": {
        "variant_id": c["big"], "selling_plan_id": c["plan"]}}), 400, "parameter_invalid",
        "primary_variant.selling_plan_id")

    assert "disabled" in body["msg"]


def test_the_hosted_checkout_does_not_offer_a_disabled_plan(api: httpx.Client, anonymous: httpx.Client) -> None:
    c = trial_product(api)
    assert _offered(anonymous, c) == [c["plan"], c["plan"]]  # both primary variants offer it

    _disable_plan(api, c["plan"])

    assert _offered(anonymous, c) == []


def test_a_disabled_plan_keeps_billing_the_subscriptions_it_has(api: httpx.Client) -> None:
    c = trial_product(api)
    sub = start_trial(api, c)

    _disable_plan(api, c["plan"])

    seen = ok(api.get(f"/v1/subscriptions/{sub['id']}"))
    assert (seen["status"], seen["selling_plan_id"]) == ("active", c["plan"])
    # Its own plan is no new choice: a variant change on it is still taken.
    changed = ok(api.post(f"/v1/subscriptions/{sub['id']}", json={
        "primary_variant": {"selling_plan_id": c["plan"], "variant_id": c["small"]}}))
    assert changed["pending_update"]["target_variant_id"] == c["small"]


def test_a_plan_change_to_a_disabled_plan_is_refused_and_changes_nothing(api: httpx.Client) -> None:
    c = trial_product(api)
    sub = start_trial(api, c)
    monthly = ok(api.post("/v1/selling_plans", json={
        "selling_plan_group_id": _group_of(api, c["plan"]), "name": "Monthly", "billing_policy_type": "RECURRING",
        "billing_policy": {"interval": "month", "interval_count": "1"}}))
    _disable_plan(api, monthly["id"])

    fails(api.post(f"/v1/subscriptions/{sub['id']}", json={"primary_variant": {"selling_plan_id": monthly["id"]}}),
          400, "parameter_invalid", "primary_variant.selling_plan_id")

    seen = ok(api.get(f"/v1/subscriptions/{sub['id']}"))
    assert seen["selling_plan_id"] == c["plan"] and not seen.get("pending_update")
