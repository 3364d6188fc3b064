"""Crypto money is never refused for want of stock (server/products/stock.py): a payment link purchase paid on
chain after its stock ran out elsewhere still succeeds, and the stock stops at 0; funds that arrive after the
purchase expired are recorded on the Canceled intent (`amount_received_late`) and take no stock, which another
shopper may have bought since."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.http.test_payment_link_availability import buy, change_variants, shirt_with_a_sticker
from tests.e2e.paid_on_chain.test_paid_on_chain import PAYER, base_units, transactions, wait_for
from tests.e2e.payment_intents.support import TEST_USDT, crypto


def shirt_stock(shop: httpx.Client, product: dict[str, Any]) -> int | None:
    return ok(shop.get(f"/v1/products/{product['id']}"))["variants"][0].get("inventory_quantity")


def usdt_quote(shop: httpx.Client, intent_id: str) -> dict[str, Any]:
    """A USDT attempt opened on the intent: its deposit address, amount and decimals."""
    return ok(shop.post(f"/v1/payment_intents/{intent_id}", json=crypto(TEST_USDT)))[
        "payment_intents"][0]["payment_method_options"]["crypto"]


def pay_usdt(chain: Chain, shop: httpx.Client, quote: dict[str, Any]) -> str:
    """Sends the quoted amount to the quote's deposit address; the transaction's hash."""
    return chain.send_token("USDT", PAYER, quote["deposit_address"],
                            base_units(quote["amount"], quote["decimals"])).tx_hash


def test_a_crypto_sale_after_the_stock_ran_out_succeeds_and_the_stock_stops_at_zero(
        chain: Chain, shop: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(shop)
    change_variants(shop, product, {"inventory_quantity": 2}, {})
    intent = ok(buy(shop, link, quantity=2))
    change_variants(shop, product, {"inventory_quantity": 1}, {})  # one of its units sold elsewhere meanwhile
    pay_usdt(chain, shop, usdt_quote(shop, intent["id"]))
    chain.mine(3)
    wait_for(shop, intent["id"], lambda i: i["status"] == "Success")
    assert shirt_stock(shop, product) == 0


def test_funds_after_expiry_are_recorded_and_take_no_stock(chain: Chain, shop: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(shop)
    change_variants(shop, product, {"inventory_quantity": 1}, {})
    shirt = link["primary_variants"][0]["variant_id"]
    expiring = ok(shop.post("/v1/payment_intents", json={"payment_link_id": link["id"], "expires_in": 2,
                                                         "primary_variant": {"variant_id": shirt}}))
    quote = usdt_quote(shop, expiring["id"])
    wait_for(shop, expiring["id"], lambda i: i["status"] == "Canceled")
    ok(buy(shop, link))  # the unit it held is for sale again: another shopper takes it
    late = pay_usdt(chain, shop, quote)
    chain.mine(3)
    recorded = wait_for(shop, expiring["id"], lambda i: any(
        t["tx_hash"] == late and t["status"] == "confirmed" for t in transactions(i)))
    assert recorded["status"] == "Canceled"
    assert Decimal(recorded["amount_received_late"]["amount"]) == Decimal(quote["amount"])
    assert shirt_stock(shop, product) == 1
