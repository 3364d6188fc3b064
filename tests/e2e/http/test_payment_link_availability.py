"""What an active payment link sells: only what the merchant still sells. An archived product, an inactive variant
(primary or add-on), a variant out of stock or a quantity above its stock (where the variant tracks
`inventory_quantity`) is refused with `400 parameter_invalid` naming the field, and no payment intent is created.
The hosted page shows the same items unavailable, and its own call to start paying refuses them the same way."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.builders import payment_link, variant_ids, variant_product

ADDON = {"min_quantity": 0, "max_quantity": 3}


def shirt_with_a_sticker(api: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """A product with a 10.00 shirt (XS) and a 5.00 sticker (S), and a link selling the shirt with the sticker as
    an optional add-on."""
    product = variant_product(api, ("10.00", "5.00"))
    shirt, sticker = variant_ids(product)
    link = payment_link(api, product, primary=[shirt], addon_variants=[{"variant_id": sticker, **ADDON}])
    return product, link


def change_variants(api: httpx.Client, product: dict[str, Any], shirt: dict[str, Any],
                    sticker: dict[str, Any]) -> None:
    """Updates the shirt's and the sticker's `active` / `inventory_quantity`, keeping everything else."""
    variants = [{"id": v["id"], "option_values": v["option_values"], "price": {"amount": v["price"]["amount"]},
                 **change} for v, change in zip(product["variants"], (shirt, sticker), strict=True)]
    ok(api.patch(f"/v1/products/{product['id']}", json={"variants": variants}))


def buy(client: httpx.Client, link: dict[str, Any], quantity: int = 1, stickers: int = 0) -> httpx.Response:
    shirt = link["primary_variants"][0]["variant_id"]
    sticker = link["addon_variants"][0]["variant_id"]
    return client.post("/v1/payment_intents", json={
        "payment_link_id": link["id"], "primary_variant": {"variant_id": shirt, "quantity": quantity},
        "addons": [{"variant_id": sticker, "quantity": stickers}] if stickers else []})


def intents_of(api: httpx.Client) -> int:
    return int(ok(api.get("/v1/payment_intents"))["total"])


def test_a_link_to_an_archived_product_sells_nothing(api: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    ok(api.patch(f"/v1/products/{product['id']}", json={"active": False}))
    body = fails(buy(api, link), 400, "parameter_invalid", "payment_link_id")
    assert "archived" in body["msg"]
    assert intents_of(api) == 0


def test_a_variant_with_no_stock_left_is_refused(api: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {"inventory_quantity": 0}, {})
    body = fails(buy(api, link), 400, "parameter_invalid", "primary_variant.variant_id")
    assert "sold out" in body["msg"]
    assert intents_of(api) == 0


def test_a_quantity_above_the_stock_is_refused(api: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {"inventory_quantity": 2}, {})
    body = fails(buy(api, link, quantity=3), 400, "parameter_invalid", "primary_variant.quantity")
    assert "only 2 left" in body["msg"]
    assert intents_of(api) == 0


def test_an_inactive_addon_is_refused(api: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {}, {"active": False})
    body = fails(buy(api, link, stickers=2), 400, "parameter_invalid", "addons[0].variant_id")
    assert "no longer sold" in body["msg"]
    assert intents_of(api) == 0


def test_an_addon_quantity_above_its_stock_is_refused(api: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {}, {"inventory_quantity": 1})
    fails(buy(api, link, stickers=2), 400, "parameter_invalid", "addons[0].quantity")
    assert intents_of(api) == 0


def test_an_inactive_addon_left_out_does_not_stop_the_sale(api: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {}, {"active": False, "inventory_quantity": 0})
    assert ok(buy(api, link))["amount"] == {"asset_id": "USD", "amount": "10.00"}


def test_an_item_in_stock_still_sells_up_to_its_last_unit(api: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {"inventory_quantity": 2}, {"inventory_quantity": 3})
    intent = ok(buy(api, link, quantity=2, stickers=3))
    assert intent["amount"] == {"asset_id": "USD", "amount": "35.00"}
    assert intents_of(api) == 1


def test_the_checkout_page_call_refuses_a_sold_out_variant(api: httpx.Client, anonymous: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {"inventory_quantity": 0}, {})
    token = ok(api.post("/v1/customers/ephemeral_tokens", json={}))["token"]
    started = anonymous.post("/checkout/sessions", json={"payment_link_id": link["id"], "ephemeral_token": token})
    fails(started, 400, "parameter_invalid", "primary_variant.variant_id")
    assert intents_of(api) == 0


def test_the_checkout_page_shows_an_archived_products_items_unavailable(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    ok(api.patch(f"/v1/products/{product['id']}", json={"active": False}))
    page = ok(anonymous.get(f"/checkout/links/{link['id']}"))
    assert [v["available"] for v in page["primary_variants"]] == [False]
    assert [a["variant"]["available"] for a in page["addon_variants"]] == [False]


def test_the_checkout_page_shows_what_the_api_refuses_unavailable(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {"inventory_quantity": 0}, {"active": False})
    page = ok(anonymous.get(f"/checkout/links/{link['id']}"))
    assert [v["available"] for v in page["primary_variants"]] == [False]
    assert [a["variant"]["available"] for a in page["addon_variants"]] == [False]
