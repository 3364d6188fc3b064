"""Orders (DESIGN §17): a payment link purchase paid on chain makes one order with what it bought, in the SDK's
field names; an intent that is not paid makes none; the order is made once, however often its listener runs."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from sqlmodel import func, select

from server.db import Database
from server.events.models import Event
from server.orders import service as orders
from server.orders.models import Order
from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.cards.support import poll
from tests.e2e.http.test_payment_link_availability import buy, shirt_with_a_sticker
from tests.e2e.paid_on_chain.test_paid_on_chain import wait_for
from tests.e2e.paid_on_chain.test_stock_paid_on_chain import pay_usdt, usdt_quote
from tests.harness import Service


def paid_purchase(chain: Chain, shop: httpx.Client, link: dict[str, Any], quantity: int = 1,
                  stickers: int = 0) -> dict[str, Any]:
    """A purchase through `link`, paid in USDT on chain: the intent once Success."""
    intent = ok(buy(shop, link, quantity=quantity, stickers=stickers))
    pay_usdt(chain, shop, usdt_quote(shop, intent["id"]))
    chain.mine(3)
    return wait_for(shop, intent["id"], lambda i: i["status"] == "Success")


def orders_of(shop: httpx.Client, count: int, **params: Any) -> dict[str, Any]:
    return poll(lambda: ok(shop.get("/v1/orders", params=params)), lambda d: d["total"] >= count)


def test_a_paid_link_purchase_makes_one_order_with_what_it_bought(chain: Chain, shop: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(shop)
    intent = paid_purchase(chain, shop, link, quantity=2, stickers=3)
    listed = orders_of(shop, 1)
    assert listed["total"] == 1 and len(listed["orders"]) == 1
    [order] = listed["orders"]
    assert (order["object"], order["status"], order["payment_method"]) == ("order", "Paid", "Crypto")
    assert order["order_number"] == order["id"] and order["id"].startswith("ord_")
    assert (order["payment_intent_id"], order["payment_link_id"]) == (intent["id"], link["id"])
    assert order["total_amount"] == {"asset_id": "USD", "amount": "35.00"}  # 2 * 10.00 + 3 * 5.00
    shirt, sticker = order["items"]
    assert (shirt["product_id"], shirt["product_name"]) == (product["id"], product["name"])
    assert (shirt["variant_id"], shirt["quantity"]) == (link["primary_variants"][0]["variant_id"], 2)
    assert shirt["unit_price"] == {"asset_id": "USD", "amount": "10.00"} and shirt["total"]["amount"] == "20.00"
    assert (sticker["variant_id"], sticker["quantity"]) == (link["addon_variants"][0]["variant_id"], 3)
    assert sticker["unit_price"]["amount"] == "5.00" and sticker["total"]["amount"] == "15.00"


def test_an_order_names_its_customer_and_shipping_address(chain: Chain, shop: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(shop)
    ann = ok(shop.post("/v1/customers", json={"name": "Ann Lee", "email": "ann@example.com", "phone": "+15550100"}))
    address = {"line1": "1 Main St", "line2": "", "city": "Springfield", "state": "IL", "postal_code": "62701",
               "country": "US"}
    intent = ok(shop.post("/v1/payment_intents", json={
        "payment_link_id": link["id"], "customer": ann["id"], "shipping_address": address,
        "primary_variant": {"variant_id": link["primary_variants"][0]["variant_id"]}}))
    pay_usdt(chain, shop, usdt_quote(shop, intent["id"]))
    chain.mine(3)
    wait_for(shop, intent["id"], lambda i: i["status"] == "Success")
    [order] = orders_of(shop, 1)["orders"]
    assert order["customer"] == {"id": ann["id"], "name": "Ann Lee", "email": "ann@example.com",
                                 "phone": "+15550100"}
    assert order["shipping_address"] == address and order["tax_region"] is None


def test_an_order_without_a_customer_answers_customer_null(chain: Chain, shop: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(shop)
    paid_purchase(chain, shop, link)
    [order] = orders_of(shop, 1)["orders"]
    assert order["customer"] is None and order["shipping_address"] is None


def test_an_order_is_read_by_its_order_number(chain: Chain, shop: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(shop)
    paid_purchase(chain, shop, link)
    [order] = orders_of(shop, 1)["orders"]
    assert ok(shop.get(f"/v1/orders/{order['order_number']}")) == order


def test_orders_list_in_pages_newest_first(chain: Chain, shop: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(shop)
    first = paid_purchase(chain, shop, link)
    orders_of(shop, 1)
    second = paid_purchase(chain, shop, link, quantity=3)
    orders_of(shop, 2)
    page0 = ok(shop.get("/v1/orders", params={"page": 0, "page_size": 1}))
    page1 = ok(shop.get("/v1/orders", params={"page": 1, "page_size": 1}))
    assert (page0["total"], page0["page"], page0["page_size"]) == (2, 0, 1)
    assert [o["payment_intent_id"] for o in page0["orders"] + page1["orders"]] == [second["id"], first["id"]]
    assert ok(shop.get("/v1/orders", params={"page": 2, "page_size": 1}))["orders"] == []


def test_another_merchants_order_is_order_not_found(chain: Chain, shop: httpx.Client,
                                                    other_shop: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(shop)
    paid_purchase(chain, shop, link)
    [order] = orders_of(shop, 1)["orders"]
    fails(other_shop.get(f"/v1/orders/{order['id']}"), 404, "order_not_found")
    assert ok(other_shop.get("/v1/orders"))["total"] == 0


def test_an_unknown_order_number_is_order_not_found(shop: httpx.Client) -> None:
    fails(shop.get("/v1/orders/ord_000000000000000000000000"), 404, "order_not_found")
    fails(shop.get("/v1/orders/ORD-2025-01047"), 404, "not_found")  # not shaped like an id: no route


def test_an_unpaid_or_expired_purchase_makes_no_order(shop: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(shop)
    ok(buy(shop, link))  # open, never paid
    shirt = link["primary_variants"][0]["variant_id"]
    expiring = ok(shop.post("/v1/payment_intents", json={"payment_link_id": link["id"], "expires_in": 2,
                                                         "primary_variant": {"variant_id": shirt}}))
    usdt_quote(shop, expiring["id"])
    wait_for(shop, expiring["id"], lambda i: i["status"] == "Canceled")
    assert ok(shop.get("/v1/orders"))["total"] == 0


def test_a_status_filter_that_is_no_order_status_is_parameter_invalid(shop: httpx.Client) -> None:
    fails(shop.get("/v1/orders", params={"status": "Shipped"}), 400, "parameter_invalid", "status")


def test_the_order_is_made_once_when_its_listener_runs_again(chain: Chain, paygate: Service,
                                                             shop: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(shop)
    intent = paid_purchase(chain, shop, link)
    [order] = orders_of(shop, 1)["orders"]

    async def run_again() -> int:
        db = Database(paygate.database_url)
        try:
            for _ in range(2):
                async with db.transaction() as session:
                    [event] = (await session.exec(select(Event).where(
                        Event.object_id == intent["id"], Event.type == "payment_intent.succeeded"))).all()
                    await orders.on_event(session, event)
            async with db.read() as session:
                return int((await session.exec(select(func.count()).select_from(Order).where(
                    Order.payment_intent_id == intent["id"]))).one())
        finally:
            await db.close()

    assert asyncio.run(run_again()) == 1
    assert ok(shop.get("/v1/orders"))["orders"] == [order]


def test_an_order_number_over_the_size_limit_is_parameter_invalid(shop: httpx.Client) -> None:
    fails(shop.get("/v1/orders/ord_" + "7" * 5000), 400, "parameter_invalid", "id")  # DESIGN §14's sizes


def test_a_page_in_non_ascii_digits_is_parameter_invalid(shop: httpx.Client) -> None:
    fails(shop.get("/v1/orders", params={"page": "\u0661"}), 400, "parameter_invalid", "page")
