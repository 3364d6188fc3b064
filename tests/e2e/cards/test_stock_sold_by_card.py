"""A sale consumes stock (server/products/stock.py): when a payment link purchase succeeds (here by card, on
provider_a's localstripe), its tracked units leave `inventory_quantity` in the transaction of the success, once;
two sales at the same time both count; a sale that finds less stock than it bought (the merchant lowered it
meanwhile) is still taken and the stock stops at 0; a refund puts nothing back; untracked variants stay untracked."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.cards.support import SUCCEEDS, chose_card, refund_ends
from tests.e2e.http.test_payment_link_availability import buy, change_variants, shirt_with_a_sticker
from tests.localstripe import LocalStripe


def stock_of(api: httpx.Client, product: dict[str, Any]) -> list[int | None]:
    """The shirt's and the sticker's `inventory_quantity` as the API shows them now."""
    variants = ok(api.get(f"/v1/products/{product['id']}"))["variants"]
    return [v.get("inventory_quantity") for v in variants]


def in_stock(api: httpx.Client, shirts: int | None, stickers: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """`shirt_with_a_sticker`'s product and link; each variant tracked with the units given (None: untracked)."""
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {} if shirts is None else {"inventory_quantity": shirts},
                    {} if stickers is None else {"inventory_quantity": stickers})
    return ok(api.get(f"/v1/products/{product['id']}")), link


def pay_by_card(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
                intent: dict[str, Any]) -> dict[str, Any]:
    paid = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                    SUCCEEDS))
    assert paid["status"] == "Success", paid
    return paid


def test_a_sale_takes_its_units_out_of_stock(api: httpx.Client, merchant: dict[str, Any],
                                             localstripe: LocalStripe) -> None:
    product, link = in_stock(api, 5, 4)
    intent = ok(buy(api, link, quantity=2, stickers=3))
    assert stock_of(api, product) == [5, 4]  # held while open, not yet taken
    pay_by_card(api, merchant, localstripe, intent)
    assert stock_of(api, product) == [3, 1]


def test_sold_units_are_no_longer_held(api: httpx.Client, merchant: dict[str, Any],
                                       localstripe: LocalStripe) -> None:
    product, link = in_stock(api, 2, None)
    pay_by_card(api, merchant, localstripe, ok(buy(api, link)))
    ok(buy(api, link))  # the one unit left, counted once: taken from the stock, no longer held
    assert stock_of(api, product) == [1, None]


def test_a_refund_does_not_restock(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    product, link = in_stock(api, 1, None)
    paid = pay_by_card(api, merchant, localstripe, ok(buy(api, link)))
    [refund] = ok(api.post("/v1/refunds", json={"payment_intent_id": paid["id"], "amount": "10.00"}))["refunds"]
    refund_ends(api, refund["id"])
    assert ok(api.get(f"/v1/payment_intents/{paid['id']}"))["status"] == "Refunded"
    assert stock_of(api, product) == [0, None]


def test_concurrent_sales_each_take_their_units(api: httpx.Client, merchant: dict[str, Any],
                                                localstripe: LocalStripe) -> None:
    product, link = in_stock(api, 4, None)
    intents = [ok(buy(api, link)) for _ in range(4)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: pay_by_card(api, merchant, localstripe, i), intents))
    assert stock_of(api, product) == [0, None]


def test_a_sale_beyond_the_stock_left_is_taken_and_the_stock_stops_at_zero(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    product, link = in_stock(api, 2, None)
    intent = ok(buy(api, link, quantity=2))
    change_variants(api, product, {"inventory_quantity": 1}, {})  # one sold elsewhere meanwhile
    pay_by_card(api, merchant, localstripe, intent)
    assert stock_of(api, product) == [0, None]


def test_an_untracked_variant_stays_untracked_after_a_sale(api: httpx.Client, merchant: dict[str, Any],
                                                           localstripe: LocalStripe) -> None:
    product, link = in_stock(api, None, 2)
    pay_by_card(api, merchant, localstripe, ok(buy(api, link, quantity=3, stickers=1)))
    assert stock_of(api, product) == [None, 1]
