"""Selling-plan groups and plans through /v1 in the SDK's field names (DESIGN §17): CRUD, scoping, a group's plans
seen on its products, and the price per cycle with a RECURRING policy after cycle N."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.http.builders import selling_plan, variant_ids, variant_product, variant_product_body


def group(api: httpx.Client, **fields: Any) -> dict[str, Any]:
    return ok(api.post("/v1/selling_plan_groups", json={"name": "Subscribe and save",
                                                        "options": ["Billing Frequency"], **fields}))  # type: ignore[no-any-return]


def plan_body(group_id: str, **fields: Any) -> dict[str, Any]:
    return {"selling_plan_group_id": group_id, "name": "Monthly", "description": "Save 10% after cycle 2",
            "billing_policy_type": "RECURRING", "billing_policy": {"interval": "month", "interval_count": "1"},
            "pricing_policy": [{"policy_type": "RECURRING", "adjustment_type": "PERCENTAGE",
                                "adjustment_value": "10", "after_cycle": "2"}],
            "trial_period_days": "7", "priority": "1", **fields}


def plan(api: httpx.Client, group_id: str, **fields: Any) -> dict[str, Any]:
    return ok(api.post("/v1/selling_plans", json=plan_body(group_id, **fields)))  # type: ignore[no-any-return]


def test_a_created_group_answers_the_sdk_fields(api: httpx.Client) -> None:
    created = group(api, description="Flexible plans")

    assert created["id"].startswith("spg_") and created["name"] == "Subscribe and save"
    assert created["description"] == "Flexible plans" and created["options"] == ["Billing Frequency"]
    assert created["status"] == "active" and created["selling_plans"] == [] and created["product_ids"] == []
    assert ok(api.get(f"/v1/selling_plan_groups/{created['id']}")) == created


def test_a_created_plan_answers_the_sdk_fields_and_joins_its_group(api: httpx.Client) -> None:
    g = group(api)
    created = plan(api, g["id"])

    assert created["id"].startswith("sp_") and created["selling_plan_group_id"] == g["id"]
    assert created["billing_policy"] == {"interval": "month", "interval_count": "1"}
    assert created["pricing_policy"] == [{"policy_type": "RECURRING", "adjustment_type": "PERCENTAGE",
                                          "adjustment_value": "10", "after_cycle": "2"}]
    assert created["trial_period_days"] == "7" and created["status"] == "active"
    assert ok(api.get(f"/v1/selling_plans/{created['id']}")) == created
    assert [p["id"] for p in ok(api.get(f"/v1/selling_plan_groups/{g['id']}"))["selling_plans"]] == [created["id"]]


def test_a_group_update_changes_the_fields_given(api: httpx.Client) -> None:
    g = group(api)

    updated = ok(api.post(f"/v1/selling_plan_groups/{g['id']}", json={
        "name": "Renamed", "description": "", "options": ["Billing Frequency"], "status": "disabled"}))

    assert updated["name"] == "Renamed" and updated["status"] == "disabled"
    assert ok(api.get(f"/v1/selling_plan_groups/{g['id']}"))["name"] == "Renamed"


def test_a_plan_update_changes_its_name_and_status(api: httpx.Client) -> None:
    p = plan(api, group(api)["id"])

    updated = ok(api.post(f"/v1/selling_plans/{p['id']}", json={
        "name": "Monthly plus", "description": p["description"], "billing_policy_type": "RECURRING",
        "trial_period_days": "7", "priority": "1", "status": "disabled"}))

    assert updated["name"] == "Monthly plus" and updated["status"] == "disabled"
    assert updated["pricing_policy"] == p["pricing_policy"] and updated["version"] == p["version"] + 1


def test_lists_page_through_groups_and_a_groups_plans(api: httpx.Client) -> None:
    first, second = group(api), group(api, name="Other")
    plan(api, first["id"])
    plan(api, second["id"])

    groups = ok(api.get("/v1/selling_plan_groups", params={"page": 0, "page_size": 10}))
    plans = ok(api.get("/v1/selling_plans", params={"selling_plan_group_id": first["id"]}))

    assert groups["total"] == 2 and {g["id"] for g in groups["data"]} == {first["id"], second["id"]}
    assert groups["offset"] == 0 and groups["limit"] == 10
    assert plans["total"] == 1 and plans["data"][0]["selling_plan_group_id"] == first["id"]


def test_deleted_groups_and_plans_are_gone(api: httpx.Client) -> None:
    g = group(api)
    p = plan(api, g["id"])

    ok(api.delete(f"/v1/selling_plans/{p['id']}"))
    fails(api.get(f"/v1/selling_plans/{p['id']}"), 404, "selling_plan_not_found")
    ok(api.delete(f"/v1/selling_plan_groups/{g['id']}"))
    fails(api.get(f"/v1/selling_plan_groups/{g['id']}"), 404, "selling_plan_group_not_found")


def test_another_merchants_group_and_plan_are_not_found(api: httpx.Client, other_api: httpx.Client) -> None:
    g = group(api)
    p = plan(api, g["id"])

    fails(other_api.get(f"/v1/selling_plan_groups/{g['id']}"), 404, "selling_plan_group_not_found")
    fails(other_api.post(f"/v1/selling_plan_groups/{g['id']}", json={"name": "Mine"}), 404,
          "selling_plan_group_not_found")
    fails(other_api.delete(f"/v1/selling_plan_groups/{g['id']}"), 404, "selling_plan_group_not_found")
    fails(other_api.get(f"/v1/selling_plans/{p['id']}"), 404, "selling_plan_not_found")
    fails(other_api.post(f"/v1/selling_plans/{p['id']}", json={"name": "Mine"}), 404, "selling_plan_not_found")
    fails(other_api.delete(f"/v1/selling_plans/{p['id']}"), 404, "selling_plan_not_found")
    fails(other_api.post("/v1/selling_plans", json=plan_body(g["id"])), 400, "parameter_invalid",
          "selling_plan_group_id")
    assert ok(other_api.get("/v1/selling_plan_groups"))["total"] == 0
    assert ok(api.get(f"/v1/selling_plan_groups/{g['id']}"))["name"] == "Subscribe and save"


def test_a_groups_plans_are_the_products_selling_plans(api: httpx.Client) -> None:
    product = variant_product(api)
    g = group(api, product_ids=[product["id"]])
    p = plan(api, g["id"])

    seen = ok(api.get(f"/v1/products/{product['id']}"))["selling_plans"]

    assert [(s["id"], s["name"], s["billing_cycle"], s["trial_period_days"]) for s in seen] == \
        [(p["id"], "Monthly", "month", 7)]
    assert seen[0]["pricing_policies"] == [{"policy_type": "RECURRING", "after_cycle": 2,
                                            "discount_percentage": "10"}]


def test_a_products_inline_plans_are_a_group_the_sdk_reads(api: httpx.Client) -> None:
    product = variant_product(api, selling_plans=[selling_plan(name="Weekly", billing_cycle="week")])
    [inline] = product["selling_plans"]

    listed = ok(api.get("/v1/selling_plans"))["data"]

    assert [(p["id"], p["name"], p["billing_policy"]["interval"]) for p in listed] == [(inline["id"], "Weekly",
                                                                                          "week")]
    owner = ok(api.get(f"/v1/selling_plan_groups/{listed[0]['selling_plan_group_id']}"))
    assert owner["product_ids"] == [product["id"]]


def test_a_plan_changed_through_the_sdk_is_changed_on_the_product(api: httpx.Client) -> None:
    product = variant_product(api, selling_plans=[selling_plan(name="Weekly", billing_cycle="week")])
    plan_id = product["selling_plans"][0]["id"]

    ok(api.post(f"/v1/selling_plans/{plan_id}", json={"name": "Every week"}))

    assert ok(api.get(f"/v1/products/{product['id']}"))["selling_plans"][0]["name"] == "Every week"


def test_a_product_created_naming_groups_belongs_to_them_and_gets_their_plans(api: httpx.Client) -> None:
    g = group(api)
    p = plan(api, g["id"])

    product = variant_product(api, selling_plan_group_ids=[g["id"]])

    assert product["selling_plan_group_ids"] == [g["id"]]
    assert [s["id"] for s in product["selling_plans"]] == [p["id"]]
    assert ok(api.get(f"/v1/selling_plan_groups/{g['id']}"))["product_ids"] == [product["id"]]


def test_a_product_update_naming_groups_joins_and_leaves_them_but_keeps_its_own(api: httpx.Client) -> None:
    first, second = group(api), group(api, name="Other")
    plan(api, first["id"])
    on_second = plan(api, second["id"])
    product = variant_product(api, selling_plans=[selling_plan(name="Weekly", billing_cycle="week")],
                              selling_plan_group_ids=[first["id"]])
    own = [g for g in product["selling_plan_group_ids"] if g != first["id"]]

    updated = ok(api.post(f"/v1/products/{product['id']}", json={"selling_plan_group_ids": [second["id"]]}))

    assert sorted(updated["selling_plan_group_ids"]) == sorted([*own, second["id"]])
    assert sorted(s["name"] for s in updated["selling_plans"]) == ["Monthly", "Weekly"]
    assert on_second["id"] in [s["id"] for s in updated["selling_plans"]]
    assert ok(api.get(f"/v1/selling_plan_groups/{first['id']}"))["product_ids"] == []


def test_a_product_naming_another_merchants_group_is_refused_and_not_made(api: httpx.Client,
                                                                        other_api: httpx.Client) -> None:
    theirs = group(other_api)

    fails(api.post("/v1/products", json=variant_product_body(selling_plan_group_ids=[theirs["id"]])), 400,
          "parameter_invalid", "selling_plan_group_ids[0]")

    assert ok(api.get("/v1/products"))["total"] == 0
    assert ok(other_api.get(f"/v1/selling_plan_groups/{theirs['id']}"))["product_ids"] == []


def test_the_price_per_cycle_applies_a_recurring_policy_after_cycle_n(api: httpx.Client) -> None:
    product = variant_product(api, prices=("20.00",))
    g = group(api, product_ids=[product["id"]])
    p = plan(api, g["id"], pricing_policy=[
        {"policy_type": "FIXED", "adjustment_type": "PERCENTAGE", "adjustment_value": "50"},
        {"policy_type": "RECURRING", "adjustment_type": "PERCENTAGE", "adjustment_value": "10", "after_cycle": "2"}])

    price = ok(api.post("/v1/selling_plans/calculate_price", json={
        "selling_plan_id": p["id"], "variant_id": variant_ids(product)[0], "quantity": 3}))

    assert price["base_price"] == "20.00" and price["currency"] == "USD" and price["billing_cycle"] == "month"
    assert (price["subtotal_before_policy"], price["selling_plan_discount"], price["subtotal_after_policy"]) == \
        ("60.00", "30.00", "30.00")
    assert [(t["policy_type"], t["after_cycle"], t["cycle_description"], t["subtotal_after_policy"])
            for t in price["pricing_tiers"]] == [("FIXED", 0, "Cycles 1-2", "30.00"),
                                                 ("RECURRING", 2, "Cycle 3 onwards", "54.00")]


def test_the_sdk_names_the_plan_plan_id(api: httpx.Client) -> None:
    product = variant_product(api, prices=("20.00",))
    p = plan(api, group(api, product_ids=[product["id"]])["id"])

    price = ok(api.post("/v1/selling_plans/calculate_price", json={
        "plan_id": p["id"], "variant_id": variant_ids(product)[0], "base_price": "20.00", "currency": "USD"}))

    assert price["subtotal_after_policy"] == "20.00" and price["pricing_tiers"][0]["subtotal_after_policy"] == "18.00"


def test_a_group_naming_an_unknown_product_is_refused(api: httpx.Client, other_api: httpx.Client) -> None:
    foreign = variant_product(other_api)

    fails(api.post("/v1/selling_plan_groups", json={"name": "G", "product_ids": ["prod_" + "0" * 24]}), 400,
          "parameter_invalid", "product_ids[0]")
    fails(api.post("/v1/selling_plan_groups", json={"name": "G", "product_ids": [foreign["id"]]}), 400,
          "parameter_invalid", "product_ids[0]")
    assert ok(api.get("/v1/selling_plan_groups"))["total"] == 0


@pytest.mark.parametrize("quantity", [-1, 0, "x", 1.5])
def test_a_bad_quantity_is_refused(api: httpx.Client, quantity: Any) -> None:
    product = variant_product(api)
    p = plan(api, group(api, product_ids=[product["id"]])["id"])

    fails(api.post("/v1/selling_plans/calculate_price", json={
        "selling_plan_id": p["id"], "variant_id": variant_ids(product)[0], "quantity": quantity}), 400,
        "parameter_invalid", "quantity")


def test_a_variant_of_a_product_outside_the_group_is_refused(api: httpx.Client) -> None:
    product, outside = variant_product(api), variant_product(api)
    p = plan(api, group(api, product_ids=[product["id"]])["id"])

    fails(api.post("/v1/selling_plans/calculate_price", json={
        "selling_plan_id": p["id"], "variant_id": variant_ids(outside)[0]}), 400, "parameter_invalid", "variant_id")


@pytest.mark.parametrize(("policy", "field"), [
    ({"policy_type": "SOMETIMES", "adjustment_type": "PERCENTAGE", "adjustment_value": "10"},
     "pricing_policy[0].policy_type"),
    ({"policy_type": "FIXED", "adjustment_type": "PERCENTAGE", "adjustment_value": "101"},
     "pricing_policy[0].adjustment_value"),
    ({"policy_type": "FIXED", "adjustment_type": "PERCENTAGE", "adjustment_value": "-5"},
     "pricing_policy[0].adjustment_value"),
    ({"policy_type": "RECURRING", "adjustment_type": "PERCENTAGE", "adjustment_value": "5", "after_cycle": "-1"},
     "pricing_policy[0].after_cycle"),
    ({"policy_type": "FIXED", "adjustment_type": "FIXED_AMOUNT", "adjustment_value": "5"},
     "pricing_policy[0].adjustment_type"),
])
def test_a_bad_pricing_policy_is_refused_naming_it(api: httpx.Client, policy: dict[str, str], field: str) -> None:
    g = group(api)

    fails(api.post("/v1/selling_plans", json=plan_body(g["id"], pricing_policy=[policy])), 400, "parameter_invalid",
          field)
    assert ok(api.get("/v1/selling_plans"))["total"] == 0


@pytest.mark.parametrize(("billing", "field"), [
    ({"interval": "fortnight", "interval_count": "1"}, "billing_policy.interval"),
    ({"interval": "month", "interval_count": "0"}, "billing_policy.interval_count"),
    ({"interval": "month", "interval_count": "\u0661"}, "billing_policy.interval_count"),
])
def test_a_bad_billing_policy_is_refused_naming_it(api: httpx.Client, billing: dict[str, str], field: str) -> None:
    fails(api.post("/v1/selling_plans", json=plan_body(group(api)["id"], billing_policy=billing)), 400,
          "parameter_invalid", field)
