"""Editing the order on the page: the shopper's first checkout held the last unit (server/products/stock.py), and
continuing again with the edited order replaces it (canceled, `replaced`) instead of being refused for it."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import ok
from tests.e2e.checkout_page.conftest import coffee_link, page_url
from tests.e2e.checkout_page.test_crypto import ephemeral_token
from tests.harness import Service


def test_the_shopper_edits_an_order_for_the_last_unit_and_continues(
        page: Page, paygate: Service, shop: httpx.Client) -> None:
    link = coffee_link(shop)
    product = ok(shop.get(f"/v1/products/{link['product']['id']}"))
    ok(shop.patch(f"/v1/products/{product['id']}", json={"variants": [
        {"id": v["id"], "option_values": v["option_values"], "price": {"amount": v["price"]["amount"]},
         "inventory_quantity": 1} for v in product["variants"]]}))
    page.goto(f"{page_url(paygate, link)}?ephemeral_token={ephemeral_token(shop)}")
    page.click("#continue")
    expect(page.locator("#step-pay")).to_be_visible()
    page.click("#edit-order")
    expect(page.locator("#continue")).to_be_visible()
    page.click("#continue")
    expect(page.locator("#step-pay")).to_be_visible()
    expect(page.locator("#error")).to_be_hidden()
    intents = ok(shop.get("/v1/payment_intents", params={"page": 0, "page_size": 10}))["payment_intents"]
    assert [(i["status"], i["cancellation_reason"]) for i in intents] == [
        ("RequiresPaymentMethod", ""), ("Canceled", "replaced")]  # newest first
