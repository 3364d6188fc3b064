"""Payment links over HTTP: create, list, retrieve with price range, activate/deactivate, delete when inactive."""

from __future__ import annotations

import pytest

from tests.conftest import fails, ok
from tests.e2e.http.builders import (
    fixed_price_product,
    inactive_payment_link,
    link_body,
    next_second,
    payment_link,
    variant_ids,
    variant_product,
)

CHECKOUT_URL = "https://checkout.test"  # PAYGATE_CHECKOUT_URL of the test service (tests/harness.py)
LINK_KEYS = {"id", "object", "active", "url", "product", "primary_variants", "addon_variants", "price_range",
             "created_at", "updated_at", "default_variant_id", "variant_config", "return_url"}


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------- create


def test_a_created_payment_link_has_the_documented_shape_and_json_types(api):
    link = payment_link(api, variant_product(api))

    assert set(link) == LINK_KEYS
    assert link["id"].startswith("pl_")
    assert link["object"] == "payment_link"
    assert is_int(link["created_at"]) and is_int(link["updated_at"])
    assert link["updated_at"] == link["created_at"]
    assert isinstance(link["primary_variants"], list) and isinstance(link["addon_variants"], list)


def test_a_new_payment_link_is_active(api):
    assert payment_link(api, fixed_price_product(api))["active"] is True


def test_a_payment_link_url_is_the_checkout_url_and_its_id(api):
    link = payment_link(api, fixed_price_product(api))

    assert link["url"] == f"{CHECKOUT_URL}/{link['id']}"


def test_a_payment_link_shows_its_product(api):
    product = fixed_price_product(api, name="E-book", description="A fine book")

    link = payment_link(api, product)

    assert link["product"] == {"id": product["id"], "name": "E-book", "description": "A fine book", "active": True}


def test_primary_variants_mark_the_default_and_carry_their_price(api):
    product = variant_product(api, prices=("10.00", "12.50", "15"))
    ids = variant_ids(product)

    link = payment_link(api, product, primary=ids, default=ids[1])

    assert link["default_variant_id"] == ids[1]
    assert link["primary_variants"] == [
        {"variant_id": ids[0], "is_primary": False, "quantity": 1,
         "variant": {"id": ids[0], "price": {"amount": "10.00", "currency": "USD", "asset_id": "USD"}}},
        {"variant_id": ids[1], "is_primary": True, "quantity": 1,
         "variant": {"id": ids[1], "price": {"amount": "12.50", "currency": "USD", "asset_id": "USD"}}},
        {"variant_id": ids[2], "is_primary": False, "quantity": 1,
         "variant": {"id": ids[2], "price": {"amount": "15", "currency": "USD", "asset_id": "USD"}}},
    ]


def test_addon_variants_is_an_empty_array_when_none_are_given(api):
    link = payment_link(api, fixed_price_product(api))

    assert link["addon_variants"] == []


def test_addon_variants_carry_their_quantities_and_price(api):
    product = variant_product(api, prices=("10.00", "2.00"))
    main, extra = variant_ids(product)

    link = payment_link(api, product, primary=[main],
                        addon_variants=[{"variant_id": extra, "min_quantity": 0, "max_quantity": 3}])

    assert link["addon_variants"] == [{"variant_id": extra, "min_quantity": 0, "max_quantity": 3,
                                       "variant": {"id": extra, "price": {"amount": "2.00", "currency": "USD",
                                                                          "asset_id": "USD"}}}]


def test_the_price_range_is_null_on_create(api):
    link = payment_link(api, variant_product(api))

    assert link["price_range"] is None


def test_return_url_is_kept_and_empty_by_default(api):
    product = variant_product(api)
    assert payment_link(api, product)["return_url"] == ""
    link = payment_link(api, product, return_url="https://shop.example/thanks")
    assert ok(api.get(f"/v1/payment_links/{link['id']}"))["return_url"] == "https://shop.example/thanks"


def test_a_return_url_that_is_not_http_is_refused(api):
    product = variant_product(api)
    fails(api.post("/v1/payment_links", json=link_body(product, return_url="javascript:alert(1)")), 400,
          "parameter_invalid", "return_url")


def test_variant_config_is_kept(api):
    product = variant_product(api)

    link = payment_link(api, product, variant_config={"default_selection": "first", "show_images": True})

    assert link["variant_config"] == {"default_selection": "first", "show_images": True}
    assert ok(api.get(f"/v1/payment_links/{link['id']}"))["variant_config"] == link["variant_config"]


@pytest.mark.parametrize("field", ["product_id", "default_variant_id", "primary_variant_ids"])
def test_a_payment_link_without_a_required_field_is_refused_naming_it(api, field):
    body = link_body(variant_product(api))
    del body[field]

    fails(api.post("/v1/payment_links", json=body), 400, "parameter_missing", field)


def test_a_payment_link_with_no_primary_variants_is_refused(api):
    body = link_body(variant_product(api), primary_variant_ids=[])

    fails(api.post("/v1/payment_links", json=body), 400, "parameter_missing", "primary_variant_ids")


def test_a_primary_variant_named_twice_is_refused(api):
    product = variant_product(api)
    ids = variant_ids(product)

    fails(api.post("/v1/payment_links", json=link_body(product, primary=[ids[0], ids[1], ids[0]])), 400,
          "parameter_invalid", "primary_variant_ids")


def test_a_payment_link_for_another_merchants_product_is_a_bad_product_id(api, other_api):
    theirs = fixed_price_product(other_api)

    fails(api.post("/v1/payment_links", json=link_body(theirs)), 400, "parameter_invalid", "product_id")


def test_a_payment_link_for_an_unknown_product_is_a_bad_product_id(api):
    body = link_body(fixed_price_product(api), product_id="prod_doesnotexist000000000000")

    fails(api.post("/v1/payment_links", json=body), 400, "parameter_invalid", "product_id")


def test_a_payment_link_for_a_live_product_is_a_bad_product_id_in_test_mode(api, live_api):
    live_product = fixed_price_product(live_api)

    fails(api.post("/v1/payment_links", json=link_body(live_product)), 400, "parameter_invalid", "product_id")


def test_a_primary_variant_of_another_product_is_refused(api):
    product = variant_product(api)
    other = fixed_price_product(api)
    primary = [variant_ids(product)[0], variant_ids(other)[0]]

    fails(api.post("/v1/payment_links", json=link_body(product, primary=primary)), 400, "parameter_invalid",
          "primary_variant_ids[1]")


def test_a_default_variant_outside_the_primaries_is_refused(api):
    product = variant_product(api)
    ids = variant_ids(product)

    fails(api.post("/v1/payment_links", json=link_body(product, primary=ids[:2], default=ids[2])), 400,
          "parameter_invalid", "default_variant_id")


def test_an_addon_with_min_above_max_quantity_is_refused(api):
    product = variant_product(api)
    ids = variant_ids(product)
    body = link_body(product, primary=ids[:1],
                     addon_variants=[{"variant_id": ids[1], "min_quantity": 3, "max_quantity": 2}])

    fails(api.post("/v1/payment_links", json=body), 400, "parameter_invalid", "addon_variants[0].max_quantity")


def test_an_addon_that_is_also_primary_is_refused(api):
    product = variant_product(api)
    ids = variant_ids(product)
    body = link_body(product, primary=ids[:2],
                     addon_variants=[{"variant_id": ids[2], "max_quantity": 1},
                                     {"variant_id": ids[1], "max_quantity": 1}])

    fails(api.post("/v1/payment_links", json=body), 400, "parameter_invalid", "addon_variants[1].variant_id")


def test_an_addon_variant_of_another_product_is_refused(api):
    product = variant_product(api)
    other = fixed_price_product(api)
    body = link_body(product, addon_variants=[{"variant_id": variant_ids(other)[0], "max_quantity": 1}])

    fails(api.post("/v1/payment_links", json=body), 400, "parameter_invalid", "addon_variants[0].variant_id")


def test_a_refused_payment_link_is_not_created(api):
    product = variant_product(api)
    ids = variant_ids(product)
    fails(api.post("/v1/payment_links", json=link_body(product, primary=ids[:1], default=ids[2])), 400,
          "parameter_invalid")

    assert ok(api.get("/v1/payment_links"))["total"] == 0


# ---------------------------------------------------------------- retrieve


def test_retrieving_a_payment_link_includes_its_price_range(api):
    product = variant_product(api, prices=("19.99", "5.50", "120", "1.00"))
    ids = variant_ids(product)
    # The add-on is the cheapest variant: the range covers the primary variants only.
    link = payment_link(api, product, primary=ids[:3], default=ids[1],
                        addon_variants=[{"variant_id": ids[3], "max_quantity": 2}])

    retrieved = ok(api.get(f"/v1/payment_links/{link['id']}"))

    assert retrieved["price_range"] == {"min": "5.50", "max": "120", "currency": "USD"}


def test_the_price_range_of_a_single_price_link_is_that_price(api):
    link = payment_link(api, fixed_price_product(api, amount="9.90"))

    assert ok(api.get(f"/v1/payment_links/{link['id']}"))["price_range"] == {"min": "9.90", "max": "9.90",
                                                                             "currency": "USD"}


def test_retrieving_a_payment_link_returns_what_create_returned_plus_the_price_range(api):
    link = payment_link(api, variant_product(api))

    retrieved = ok(api.get(f"/v1/payment_links/{link['id']}"))

    assert {k: v for k, v in retrieved.items() if k != "price_range"} == \
        {k: v for k, v in link.items() if k != "price_range"}


def test_an_unknown_payment_link_is_not_found(api):
    fails(api.get("/v1/payment_links/pl_doesnotexist00000000000000"), 404, "payment_link_not_found")


def test_a_test_mode_payment_link_is_not_found_in_live_mode(api, live_api):
    link = payment_link(api, fixed_price_product(api))

    fails(live_api.get(f"/v1/payment_links/{link['id']}"), 404, "payment_link_not_found")


def test_a_test_key_on_the_merchants_live_payment_link_is_forbidden(api, live_api):
    # DESIGN §2: a valid credential used where it is not allowed (a test key on a live object) is 403.
    link = inactive_payment_link(live_api, fixed_price_product(live_api))

    fails(api.get(f"/v1/payment_links/{link['id']}"), 403, "forbidden")
    fails(api.post(f"/v1/payment_links/{link['id']}", json={"active": True}), 403, "forbidden")
    fails(api.delete(f"/v1/payment_links/{link['id']}"), 403, "forbidden")
    assert ok(live_api.get(f"/v1/payment_links/{link['id']}"))["active"] is False


# ---------------------------------------------------------------- list


def test_listing_payment_links_defaults_to_the_first_page_of_10(api):
    product = fixed_price_product(api)
    for _ in range(11):
        payment_link(api, product)

    listed = ok(api.get("/v1/payment_links"))

    assert (listed["page"], listed["page_size"], listed["total"]) == (0, 10, 11)
    assert len(listed["payment_links"]) == 10


def test_listed_payment_links_have_no_price_range(api):
    link = payment_link(api, variant_product(api))

    [listed] = ok(api.get("/v1/payment_links"))["payment_links"]

    assert listed["id"] == link["id"]
    assert listed["price_range"] is None


def test_payment_links_can_be_filtered_by_active(api):
    product = fixed_price_product(api)
    active = payment_link(api, product)
    inactive = inactive_payment_link(api, product)

    only_active = ok(api.get("/v1/payment_links", params={"active": "true"}))
    only_inactive = ok(api.get("/v1/payment_links", params={"active": "false"}))

    assert [x["id"] for x in only_active["payment_links"]] == [active["id"]] and only_active["total"] == 1
    assert [x["id"] for x in only_inactive["payment_links"]] == [inactive["id"]] and only_inactive["total"] == 1


def test_payment_links_can_be_filtered_by_product(api):
    book, shirt = fixed_price_product(api), variant_product(api)
    wanted = {payment_link(api, shirt)["id"], payment_link(api, shirt)["id"]}
    payment_link(api, book)

    listed = ok(api.get("/v1/payment_links", params={"product": shirt["id"]}))

    assert {x["id"] for x in listed["payment_links"]} == wanted and listed["total"] == 2


def test_payment_links_are_listed_newest_first(api):
    # Created within the same second: the order must still be the order of creation, newest first.
    product = fixed_price_product(api)
    created = [payment_link(api, product)["id"] for _ in range(4)]

    listed = ok(api.get("/v1/payment_links"))

    assert [x["id"] for x in listed["payment_links"]] == created[::-1]


@pytest.mark.parametrize("page_size", [0, -1])
def test_a_payment_links_page_size_below_1_is_refused(api, page_size):
    fails(api.get("/v1/payment_links", params={"page_size": page_size}), 400, "parameter_invalid", "page_size")


def test_the_payment_link_list_shows_only_the_merchants_own_links(api, other_api):
    payment_link(other_api, fixed_price_product(other_api))
    mine = payment_link(api, fixed_price_product(api))

    listed = ok(api.get("/v1/payment_links"))

    assert [x["id"] for x in listed["payment_links"]] == [mine["id"]] and listed["total"] == 1


# ---------------------------------------------------------------- update


def test_deactivating_a_payment_link_returns_exactly_its_summary(api):
    product = fixed_price_product(api, name="E-book", description="A fine book")
    link = payment_link(api, product)

    updated = ok(api.post(f"/v1/payment_links/{link['id']}", json={"active": False}))

    assert set(updated) == {"id", "active", "url", "product", "updated_at"}
    assert updated["id"] == link["id"]
    assert updated["active"] is False
    assert updated["url"] == f"{CHECKOUT_URL}/{link['id']}"
    assert updated["product"] == {"id": product["id"], "name": "E-book", "description": "A fine book",
                                  "active": True}
    assert is_int(updated["updated_at"])


def test_deactivating_a_payment_link_moves_its_updated_at(api):
    link = payment_link(api, fixed_price_product(api))
    next_second()

    updated = ok(api.post(f"/v1/payment_links/{link['id']}", json={"active": False}))

    assert updated["updated_at"] > link["updated_at"]


def test_a_deactivated_payment_link_reads_inactive(api):
    link = inactive_payment_link(api, fixed_price_product(api))

    assert ok(api.get(f"/v1/payment_links/{link['id']}"))["active"] is False


def test_a_payment_link_can_be_reactivated(api):
    link = inactive_payment_link(api, fixed_price_product(api))

    assert ok(api.post(f"/v1/payment_links/{link['id']}", json={"active": True}))["active"] is True
    assert ok(api.get(f"/v1/payment_links/{link['id']}"))["active"] is True


def test_updating_a_payment_link_without_active_is_refused(api):
    link = payment_link(api, fixed_price_product(api))

    fails(api.post(f"/v1/payment_links/{link['id']}", json={}), 400, "parameter_missing", "active")


def test_updating_a_payment_link_with_a_null_active_is_refused(api):
    link = payment_link(api, fixed_price_product(api))

    fails(api.post(f"/v1/payment_links/{link['id']}", json={"active": None}), 400, "parameter_missing", "active")


@pytest.mark.parametrize("field", ["primary_variant_ids", "default_variant_id", "addon_variants", "product_id",
                                   "variant_config"])
def test_the_variant_configuration_of_a_payment_link_cannot_change(api, field):
    product = variant_product(api)
    ids = variant_ids(product)
    link = payment_link(api, product, primary=ids[:2])
    change = {"primary_variant_ids": [ids[1]], "default_variant_id": ids[1],
              "addon_variants": [{"variant_id": ids[2], "max_quantity": 1}],
              "product_id": variant_product(api)["id"], "variant_config": {"default_selection": "last"}}[field]

    fails(api.post(f"/v1/payment_links/{link['id']}", json={"active": True, field: change}), 400,
          "parameter_invalid", field)
    assert ok(api.get(f"/v1/payment_links/{link['id']}"))["primary_variants"] == link["primary_variants"]


# ---------------------------------------------------------------- delete


def test_deleting_an_active_payment_link_is_a_conflict(api):
    link = payment_link(api, fixed_price_product(api))

    fails(api.delete(f"/v1/payment_links/{link['id']}"), 409, "payment_link_active")
    assert ok(api.get(f"/v1/payment_links/{link['id']}"))["active"] is True


def test_deleting_an_inactive_payment_link_answers_without_data(api):
    link = inactive_payment_link(api, fixed_price_product(api))

    response = api.delete(f"/v1/payment_links/{link['id']}")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"code", "error_code", "msg"}
    assert body["code"] == 0 and body["error_code"] == "success"
    assert isinstance(body["msg"], str) and body["msg"]


def test_a_deleted_payment_link_is_not_found(api):
    link = inactive_payment_link(api, fixed_price_product(api))
    api.delete(f"/v1/payment_links/{link['id']}").raise_for_status()

    fails(api.get(f"/v1/payment_links/{link['id']}"), 404, "payment_link_not_found")
    fails(api.delete(f"/v1/payment_links/{link['id']}"), 404, "payment_link_not_found")


def test_a_product_whose_links_are_deleted_can_be_deleted(api):
    product = fixed_price_product(api)
    link = inactive_payment_link(api, product)
    api.delete(f"/v1/payment_links/{link['id']}").raise_for_status()

    assert ok(api.delete(f"/v1/products/{product['id']}")) == {}


# ---------------------------------------------------------------- another merchant's link


def test_another_merchants_payment_link_is_not_found(api, other_api):
    theirs = payment_link(other_api, fixed_price_product(other_api))

    fails(api.get(f"/v1/payment_links/{theirs['id']}"), 404, "payment_link_not_found")


def test_updating_another_merchants_payment_link_is_not_found(api, other_api):
    theirs = payment_link(other_api, fixed_price_product(other_api))

    fails(api.post(f"/v1/payment_links/{theirs['id']}", json={"active": False}), 404, "payment_link_not_found")
    assert ok(other_api.get(f"/v1/payment_links/{theirs['id']}"))["active"] is True


def test_deleting_another_merchants_payment_link_is_not_found(api, other_api):
    theirs = inactive_payment_link(other_api, fixed_price_product(other_api))

    fails(api.delete(f"/v1/payment_links/{theirs['id']}"), 404, "payment_link_not_found")
    ok(other_api.get(f"/v1/payment_links/{theirs['id']}"))
