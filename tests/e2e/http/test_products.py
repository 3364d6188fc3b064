"""Products over HTTP: create, list, retrieve, update (PATCH and the SDK's whole-product POST), delete."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import fails, http_client, ok
from tests.e2e.http.builders import (
    create_product,
    fixed_price_body,
    fixed_price_product,
    next_second,
    payment_link,
    selling_plan,
    variant_ids,
    variant_product,
    variant_product_body,
)

PRODUCT_KEYS = {
    "id", "object", "name", "description", "active", "default_currency", "fixed_price", "options", "variants",
    "metadata", "collect_shipping_address", "collect_tax_address", "version", "created_at", "updated_at",
    "selling_plans", "image_url", "selling_plan_group_ids",
}
VARIANT_KEYS = {"id", "option_values", "price", "active", "inventory_quantity", "title", "sku"}
PLAN_KEYS = {"id", "name", "description", "billing_cycle", "billing_cycle_interval", "trial_period_days",
             "pricing_policies"}


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------- create


def test_a_created_product_has_the_documented_shape_and_json_types(api):
    product = variant_product(api, selling_plans=[selling_plan()], metadata={"team": "apparel"})

    assert set(product) == PRODUCT_KEYS
    assert product["object"] == "product"
    assert isinstance(product["name"], str) and isinstance(product["description"], str)
    assert product["active"] is True
    assert isinstance(product["options"], list) and isinstance(product["variants"], list)
    assert isinstance(product["metadata"], dict)
    assert product["collect_shipping_address"] is False and product["collect_tax_address"] is False
    assert is_int(product["version"]) and product["version"] == 1
    assert is_int(product["created_at"]) and is_int(product["updated_at"])
    assert product["updated_at"] == product["created_at"]
    for variant in product["variants"]:
        assert set(variant) == VARIANT_KEYS
        assert isinstance(variant["price"]["amount"], str) and isinstance(variant["price"]["currency"], str)
        assert variant["active"] is True
        assert variant["inventory_quantity"] is None
    assert set(product["selling_plans"][0]) == PLAN_KEYS


def test_product_variant_and_selling_plan_ids_carry_their_prefixes(api):
    product = variant_product(api, selling_plans=[selling_plan()])

    assert product["id"].startswith("prod_")
    assert all(v["id"].startswith("var_") for v in product["variants"])
    assert product["selling_plans"][0]["id"].startswith("sp_")
    assert len(set(variant_ids(product))) == 3


def test_a_product_with_variants_has_a_null_fixed_price(api):
    product = variant_product(api)

    assert product["fixed_price"] is None


def test_variants_are_returned_with_their_options_and_prices(api):
    product = variant_product(api, prices=("10.00", "12.50", "15"))

    assert product["options"] == [{"name": "Size", "values": [{"value": "XS"}, {"value": "S"}, {"value": "M"}]}]
    assert [(v["option_values"], v["price"], v["title"]) for v in product["variants"]] == [
        ({"Size": "XS"}, {"amount": "10.00", "currency": "USD", "asset_id": "USD"}, "XS"),
        ({"Size": "S"}, {"amount": "12.50", "currency": "USD", "asset_id": "USD"}, "S"),
        ({"Size": "M"}, {"amount": "15", "currency": "USD", "asset_id": "USD"}, "M"),
    ]


def test_a_variant_title_follows_the_order_of_the_options(api):
    values = {"Size": "Large", "Fit": "Slim", "Colour": "Red"}
    body = {"name": "Shirt", "default_currency": "USD",
            "options": [{"name": name, "values": [{"value": value}]} for name, value in values.items()],
            # The option values are named in another order than the options.
            "variants": [{"option_values": dict(reversed(values.items())), "price": {"amount": "30"}}]}

    created = create_product(api, body)

    assert created["variants"][0]["title"] == "Large / Slim / Red"
    assert ok(api.get(f"/v1/products/{created['id']}"))["variants"][0]["title"] == "Large / Slim / Red"


def test_variant_active_and_inventory_quantity_are_kept(api):
    body = variant_product_body(prices=("1", "2"))
    body["variants"][0].update(active=False, inventory_quantity=7, sku="TS-XS")

    product = create_product(api, body)

    first, second = product["variants"]
    assert (first["active"], first["inventory_quantity"], first["sku"]) == (False, 7, "TS-XS")
    assert (second["active"], second["inventory_quantity"]) == (True, None)


def test_a_fixed_price_product_gets_one_default_variant(api):
    product = fixed_price_product(api, amount="5.00")

    assert product["fixed_price"] == {"amount": "5.00", "currency": "USD"}
    assert product["options"] == []
    [variant] = product["variants"]
    assert variant["id"].startswith("var_")
    assert variant["option_values"] == {}
    assert variant["price"] == {"amount": "5.00", "currency": "USD", "asset_id": "USD"}


def test_a_product_is_active_by_default(api):
    assert fixed_price_product(api)["active"] is True


def test_a_product_can_be_created_inactive(api):
    assert fixed_price_product(api, active=False)["active"] is False


def test_the_default_currency_is_upper_cased(api):
    product = fixed_price_product(api, default_currency="usd")

    assert product["default_currency"] == "USD"
    assert product["fixed_price"]["currency"] == "USD"
    assert product["variants"][0]["price"]["currency"] == "USD"


def test_metadata_description_and_collect_flags_are_stored(api):
    created = fixed_price_product(api, description="A fine book", metadata={"isbn": "978-3", "pages": 320},
                                  collect_shipping_address=True, collect_tax_address=True)

    product = ok(api.get(f"/v1/products/{created['id']}"))
    assert product["description"] == "A fine book"
    assert product["metadata"] == {"isbn": "978-3", "pages": 320}
    assert product["collect_shipping_address"] is True and product["collect_tax_address"] is True


def test_selling_plans_are_returned_with_their_pricing_policies(api):
    policies = [{"policy_type": "FIXED", "after_cycle": 0, "discount_percentage": "50"},
                {"policy_type": "RECURRING", "after_cycle": 1, "discount_percentage": "12.5"}]
    plan = selling_plan(name="Yearly", billing_cycle="year", billing_cycle_interval=2, trial_period_days=14,
                        pricing_policies=policies)

    [returned] = fixed_price_product(api, selling_plans=[plan])["selling_plans"]

    assert returned["name"] == "Yearly"
    assert returned["billing_cycle"] == "year"
    assert (returned["billing_cycle_interval"], returned["trial_period_days"]) == (2, 14)
    assert returned["pricing_policies"] == plan["pricing_policies"]


@pytest.mark.parametrize("field", ["name", "default_currency"])
def test_a_product_without_a_required_field_is_refused_naming_it(api, field):
    body = fixed_price_body()
    del body[field]

    fails(api.post("/v1/products", json=body), 400, "parameter_missing", field)


def test_an_unknown_default_currency_is_refused(api):
    fails(api.post("/v1/products", json=fixed_price_body(default_currency="XYZ")), 400, "parameter_invalid",
          "default_currency")


def test_a_variant_priced_in_another_currency_is_refused(api):
    body = variant_product_body()
    body["variants"][1]["price"]["currency"] = "EUR"

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "variants[1].price.currency")


# A JSON number is taken as money when its text is a decimal amount (DESIGN §17): these are not.
@pytest.mark.parametrize("amount", ["abc", "-1", -1.5, 1e-07, "1e3"],
                         ids=["letters", "negative", "negative-json-number", "json-number-with-exponent", "exponent"])
def test_a_bad_variant_amount_is_refused_naming_its_path(api, amount):
    body = variant_product_body()
    body["variants"][1]["price"]["amount"] = amount

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "variants[1].price.amount")


# A JSON number is taken as money when its text is a decimal amount (DESIGN §17): these are not.
@pytest.mark.parametrize("amount", ["abc", "-1", -1.5, 1e-07, "1e3"],
                         ids=["letters", "negative", "negative-json-number", "json-number-with-exponent", "exponent"])
def test_a_bad_fixed_price_amount_is_refused_naming_its_path(api, amount):
    fails(api.post("/v1/products", json=fixed_price_body(amount=amount)), 400, "parameter_invalid",
          "fixed_price.amount")


def test_a_variant_without_a_price_is_refused(api):
    body = variant_product_body()
    del body["variants"][2]["price"]

    fails(api.post("/v1/products", json=body), 400, "parameter_missing", "variants[2].price")


def test_a_variant_with_a_value_outside_its_options_is_refused(api):
    body = variant_product_body()
    body["variants"][1]["option_values"] = {"Size": "XXXL"}

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "variants[1].option_values")


def test_a_variant_naming_an_unknown_option_is_refused(api):
    body = variant_product_body()
    body["variants"][1]["option_values"] = {"Size": "S", "Colour": "Red"}

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "variants[1].option_values")


def test_two_variants_with_the_same_option_values_are_refused(api):
    body = variant_product_body()
    body["variants"][2]["option_values"] = {"Size": "XS"}

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "variants[2].option_values")


def test_a_fixed_price_with_variants_is_refused(api):
    body = variant_product_body(fixed_price={"amount": "5.00"})

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "fixed_price")


def test_options_without_variants_are_refused(api):
    body = variant_product_body()
    del body["variants"]

    fails(api.post("/v1/products", json=body), 400, "parameter_missing", "variants")


def test_an_unknown_billing_cycle_is_refused(api):
    body = fixed_price_body(selling_plans=[selling_plan(), selling_plan(billing_cycle="fortnight")])

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid", "selling_plans[1].billing_cycle")


def test_a_discount_above_100_percent_is_refused(api):
    policies = [{"policy_type": "FIXED", "after_cycle": 0, "discount_percentage": "100.01"}]
    body = fixed_price_body(selling_plans=[selling_plan(pricing_policies=policies)])

    fails(api.post("/v1/products", json=body), 400, "parameter_invalid",
          "selling_plans[0].pricing_policies[0].discount_percentage")


def test_a_refused_product_is_not_created(api):
    body = variant_product_body()
    body["variants"][1]["price"]["amount"] = "abc"
    fails(api.post("/v1/products", json=body), 400, "parameter_invalid")

    assert ok(api.get("/v1/products"))["total"] == 0


# ---------------------------------------------------------------- list


def test_listing_products_defaults_to_the_first_page_of_10(api):
    for i in range(11):
        fixed_price_product(api, name=f"Book {i}")

    listed = ok(api.get("/v1/products"))

    assert (listed["page"], listed["page_size"], listed["total"]) == (0, 10, 11)
    assert len(listed["products"]) == 10


def test_the_next_products_page_holds_the_rest(api):
    created = [fixed_price_product(api, name=f"Book {i}")["id"] for i in range(3)]

    first = ok(api.get("/v1/products", params={"page_size": 2}))
    second = ok(api.get("/v1/products", params={"page_size": 2, "page": 1}))

    assert (second["page"], second["page_size"], second["total"]) == (1, 2, 3)
    assert sorted(p["id"] for p in first["products"] + second["products"]) == sorted(created)


def test_a_products_page_size_of_50_is_allowed(api):
    fixed_price_product(api)

    listed = ok(api.get("/v1/products", params={"page_size": 50}))

    assert listed["page_size"] == 50 and len(listed["products"]) == 1


@pytest.mark.parametrize("page_size", [0, 51])
def test_a_products_page_size_outside_1_to_50_is_refused(api, page_size):
    fails(api.get("/v1/products", params={"page_size": page_size}), 400, "parameter_invalid", "page_size")


def test_a_non_boolean_active_filter_is_refused(api):
    fails(api.get("/v1/products", params={"active": "maybe"}), 400, "parameter_invalid", "active")


def test_a_negative_products_page_is_refused(api):
    fails(api.get("/v1/products", params={"page": -1}), 400, "parameter_invalid", "page")


def test_products_can_be_filtered_by_active(api):
    active = fixed_price_product(api, name="On sale")
    inactive = fixed_price_product(api, name="Withdrawn", active=False)

    only_active = ok(api.get("/v1/products", params={"active": "true"}))
    only_inactive = ok(api.get("/v1/products", params={"active": "false"}))

    assert [p["id"] for p in only_active["products"]] == [active["id"]] and only_active["total"] == 1
    assert [p["id"] for p in only_inactive["products"]] == [inactive["id"]] and only_inactive["total"] == 1


def test_products_are_listed_newest_first(api):
    # Created within the same second: the order must still be the order of creation, newest first.
    created = [fixed_price_product(api, name=f"Book {i}")["id"] for i in range(4)]

    listed = ok(api.get("/v1/products"))

    assert [p["id"] for p in listed["products"]] == created[::-1]


def test_listed_products_have_the_full_product_shape(api):
    created = variant_product(api)

    [listed] = ok(api.get("/v1/products"))["products"]

    assert listed == created


def test_the_product_list_shows_only_the_merchants_own_products(api, other_api):
    fixed_price_product(other_api)
    mine = fixed_price_product(api)

    listed = ok(api.get("/v1/products"))

    assert [p["id"] for p in listed["products"]] == [mine["id"]] and listed["total"] == 1


def test_the_live_product_list_does_not_show_test_products(api, live_api):
    fixed_price_product(api)

    listed = ok(live_api.get("/v1/products"))

    assert listed["products"] == [] and listed["total"] == 0


# ---------------------------------------------------------------- retrieve


def test_retrieving_a_product_returns_it_as_data(api):
    created = variant_product(api, selling_plans=[selling_plan()])

    assert ok(api.get(f"/v1/products/{created['id']}")) == created


def test_an_unknown_product_is_not_found(api):
    fails(api.get("/v1/products/prod_doesnotexist000000000000"), 404, "product_not_found")


def test_another_merchants_product_is_not_found(api, other_api):
    theirs = fixed_price_product(other_api)

    fails(api.get(f"/v1/products/{theirs['id']}"), 404, "product_not_found")


def test_a_test_mode_product_is_not_found_in_live_mode(api, live_api):
    product = fixed_price_product(api)

    fails(live_api.get(f"/v1/products/{product['id']}"), 404, "product_not_found")


def test_a_test_key_on_the_merchants_live_product_is_forbidden(api, live_api):
    # DESIGN §2: a valid credential used where it is not allowed (a test key on a live object) is 403.
    product = fixed_price_product(live_api)

    fails(api.get(f"/v1/products/{product['id']}"), 403, "forbidden")
    fails(api.patch(f"/v1/products/{product['id']}", json={"name": "x"}), 403, "forbidden")
    fails(api.delete(f"/v1/products/{product['id']}"), 403, "forbidden")
    assert ok(live_api.get(f"/v1/products/{product['id']}")) == product


def test_a_test_key_on_another_merchants_live_product_is_not_found(api, other_merchant, service):
    with http_client(service, other_merchant["live"]["secret_key"]) as their_live_api:
        theirs = fixed_price_product(their_live_api)

    fails(api.get(f"/v1/products/{theirs['id']}"), 404, "product_not_found")


# ---------------------------------------------------------------- update


def test_patching_a_product_bumps_its_version_and_updated_at(api):
    product = fixed_price_product(api)
    next_second()

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"name": "Second edition"}))

    assert updated["version"] == product["version"] + 1
    assert updated["updated_at"] > product["updated_at"]
    assert updated["created_at"] == product["created_at"]


def test_concurrent_updates_of_one_product_each_get_their_own_version(api):
    product = fixed_price_product(api)

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda n: api.patch(f"/v1/products/{product['id']}", json={"name": f"Edition {n}"}),
                                range(8)))

    versions = sorted(ok(a)["version"] for a in answers)
    assert versions == list(range(product["version"] + 1, product["version"] + 9))
    assert ok(api.get(f"/v1/products/{product['id']}"))["version"] == product["version"] + 8


def test_patching_a_product_keeps_the_fields_it_does_not_name(api):
    product = variant_product(api, description="Cotton", metadata={"team": "apparel"}, selling_plans=[selling_plan()],
                              collect_shipping_address=True)

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"name": "Organic T-shirt"}))

    assert updated["name"] == "Organic T-shirt"
    unchanged = PRODUCT_KEYS - {"name", "version", "updated_at"}
    assert {k: updated[k] for k in unchanged} == {k: product[k] for k in unchanged}


def test_an_update_is_visible_on_retrieve(api):
    product = fixed_price_product(api)

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"description": "Now with pictures"}))

    assert ok(api.get(f"/v1/products/{product['id']}")) == updated


def test_posting_the_whole_product_back_updates_it(api):
    # The public SDK updates by POSTing the whole product as it read it, with read-only fields included.
    product = variant_product(api, selling_plans=[selling_plan()], metadata={"team": "apparel"})
    whole = ok(api.get(f"/v1/products/{product['id']}"))
    whole["name"] = "Renamed"
    whole["variants"][1]["price"]["amount"] = "13.00"

    updated = ok(api.post(f"/v1/products/{product['id']}", json=whole))

    assert updated["name"] == "Renamed"
    assert updated["version"] == product["version"] + 1
    assert variant_ids(updated) == variant_ids(product)
    assert [v["price"]["amount"] for v in updated["variants"]] == ["10.00", "13.00", "15"]
    assert updated["selling_plans"] == product["selling_plans"]
    assert updated["metadata"] == {"team": "apparel"}


def test_posting_the_whole_product_back_bumps_its_version_and_updated_at(api):
    product = variant_product(api)
    whole = ok(api.get(f"/v1/products/{product['id']}"))
    next_second()

    updated = ok(api.post(f"/v1/products/{product['id']}", json=whole))

    assert updated["version"] == product["version"] + 1
    assert updated["updated_at"] > product["updated_at"]
    assert updated["created_at"] == product["created_at"]


def test_posting_a_whole_fixed_price_product_back_keeps_its_default_variant(api):
    product = fixed_price_product(api, amount="5.00")
    whole = ok(api.get(f"/v1/products/{product['id']}"))
    whole["fixed_price"]["amount"] = "6.00"

    updated = ok(api.post(f"/v1/products/{product['id']}", json=whole))

    assert updated["fixed_price"] == {"amount": "6.00", "currency": "USD"}
    assert variant_ids(updated) == variant_ids(product)
    assert updated["variants"][0]["price"] == {"amount": "6.00", "currency": "USD", "asset_id": "USD"}


def test_changing_the_fixed_price_reprices_the_default_variant(api):
    product = fixed_price_product(api, amount="5.00")

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"fixed_price": {"amount": "7.25"}}))

    assert updated["fixed_price"] == {"amount": "7.25", "currency": "USD"}
    assert updated["variants"][0]["id"] == product["variants"][0]["id"]
    assert updated["variants"][0]["price"]["amount"] == "7.25"


def test_changing_only_the_default_currency_moves_every_price_to_it(api):
    product = variant_product(api, prices=("10.00", "12.50"))

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"default_currency": "eur"}))

    assert updated["default_currency"] == "EUR"
    assert [v["price"] for v in updated["variants"]] == [{"amount": "10.00", "currency": "EUR", "asset_id": "EUR"},
                                                         {"amount": "12.50", "currency": "EUR", "asset_id": "EUR"}]


def test_changing_only_the_default_currency_of_a_fixed_price_product_moves_its_price(api):
    product = fixed_price_product(api, amount="5.00")

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"default_currency": "EUR"}))

    assert updated["fixed_price"] == {"amount": "5.00", "currency": "EUR"}
    assert updated["variants"][0]["price"] == {"amount": "5.00", "currency": "EUR", "asset_id": "EUR"}


def test_variants_sent_back_with_their_ids_keep_them(api):
    product = variant_product(api, prices=("10.00", "12.50"))
    variants = [{"id": v["id"], "option_values": v["option_values"], "price": {"amount": "20"}}
                for v in product["variants"]]

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"variants": variants}))

    assert variant_ids(updated) == variant_ids(product)
    assert [v["price"]["amount"] for v in updated["variants"]] == ["20", "20"]


def test_variants_without_ids_are_added_and_those_left_out_removed(api):
    product = variant_product(api, prices=("10.00", "12.50", "15"))
    kept = product["variants"][0]
    variants = [{"id": kept["id"], "option_values": kept["option_values"], "price": kept["price"]},
                {"option_values": {"Size": "M"}, "price": {"amount": "18"}}]

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"variants": variants}))

    first, added = updated["variants"]
    assert first["id"] == kept["id"]
    assert added["id"].startswith("var_") and added["id"] not in variant_ids(product)
    assert (added["option_values"], added["price"]["amount"]) == ({"Size": "M"}, "18")


def test_a_variant_id_of_another_product_is_refused_on_update(api):
    product = variant_product(api, prices=("10.00",))
    other = variant_product(api, prices=("10.00",))
    variants = [{"id": other["variants"][0]["id"], "option_values": {"Size": "XS"}, "price": {"amount": "1"}}]

    fails(api.patch(f"/v1/products/{product['id']}", json={"variants": variants}), 400, "parameter_invalid",
          "variants[0].id")


def test_removing_a_variant_a_payment_link_sells_is_refused(api):
    product = variant_product(api, prices=("10.00", "12.50"))
    payment_link(api, product, primary=[product["variants"][1]["id"]])
    kept = product["variants"][0]
    variants = [{"id": kept["id"], "option_values": kept["option_values"], "price": kept["price"]}]

    fails(api.patch(f"/v1/products/{product['id']}", json={"variants": variants}), 400, "parameter_invalid",
          "variants")
    assert variant_ids(ok(api.get(f"/v1/products/{product['id']}"))) == variant_ids(product)


def test_a_refused_update_changes_nothing(api):
    product = variant_product(api)
    body = {"name": "Renamed", "variants": [{"option_values": {"Size": "XS"}, "price": {"amount": "abc"}}]}

    fails(api.patch(f"/v1/products/{product['id']}", json=body), 400, "parameter_invalid", "variants[0].price.amount")

    assert ok(api.get(f"/v1/products/{product['id']}")) == product


def test_a_product_can_be_deactivated(api):
    product = fixed_price_product(api)

    assert ok(api.patch(f"/v1/products/{product['id']}", json={"active": False}))["active"] is False


def test_null_in_an_update_body_means_not_given(api):
    product = fixed_price_product(api, description="Kept", metadata={"k": "v"})

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={
        "name": "Renamed", "description": None, "fixed_price": None, "metadata": None, "active": None,
        "variants": None, "selling_plans": None,
    }))

    assert updated["name"] == "Renamed"
    assert updated["description"] == "Kept"
    assert updated["fixed_price"] == product["fixed_price"]
    assert updated["metadata"] == {"k": "v"}
    assert updated["active"] is True
    assert updated["variants"] == product["variants"]


def test_an_update_whose_fields_are_all_null_changes_nothing_but_the_version(api):
    product = fixed_price_product(api, description="Kept")

    updated = ok(api.patch(f"/v1/products/{product['id']}", json={"description": None, "name": None}))

    assert {k: v for k, v in updated.items() if k not in ("version", "updated_at")} == \
        {k: v for k, v in product.items() if k not in ("version", "updated_at")}


def test_updating_an_unknown_product_is_not_found(api):
    fails(api.patch("/v1/products/prod_doesnotexist000000000000", json={"name": "x"}), 404, "product_not_found")


def test_updating_another_merchants_product_is_not_found(api, other_api):
    theirs = fixed_price_product(other_api)

    fails(api.patch(f"/v1/products/{theirs['id']}", json={"name": "Mine now"}), 404, "product_not_found")
    fails(api.post(f"/v1/products/{theirs['id']}", json={"name": "Mine now"}), 404, "product_not_found")
    assert ok(other_api.get(f"/v1/products/{theirs['id']}"))["name"] == theirs["name"]


# ---------------------------------------------------------------- delete


def test_deleting_a_product_returns_empty_data(api):
    product = fixed_price_product(api)

    assert ok(api.delete(f"/v1/products/{product['id']}")) == {}


def test_a_deleted_product_is_not_found(api):
    product = variant_product(api, selling_plans=[selling_plan()])
    ok(api.delete(f"/v1/products/{product['id']}"))

    fails(api.get(f"/v1/products/{product['id']}"), 404, "product_not_found")
    fails(api.delete(f"/v1/products/{product['id']}"), 404, "product_not_found")


def test_deleting_a_product_a_payment_link_uses_is_a_conflict(api):
    product = fixed_price_product(api)
    payment_link(api, product)

    fails(api.delete(f"/v1/products/{product['id']}"), 409, "product_in_use")
    ok(api.get(f"/v1/products/{product['id']}"))


def test_deleting_another_merchants_product_is_not_found(api, other_api):
    theirs = fixed_price_product(other_api)

    fails(api.delete(f"/v1/products/{theirs['id']}"), 404, "product_not_found")
    ok(other_api.get(f"/v1/products/{theirs['id']}"))
