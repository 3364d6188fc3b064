"""A checkout with money in flight keeps its stock (server/products/stock.py): when the shopper edits the order of
a hosted checkout that is already Processing, that intent is not replaced (canceling it would turn the payment on
its way into a late one); it keeps holding its units, so the edited checkout and every other shopper are refused
the last unit until the payment settles. Replacing a checkout with nothing received:
tests/e2e/http/test_stock_on_checkout_page.py."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.http.test_payment_link_availability import buy, change_variants, shirt_with_a_sticker
from tests.e2e.http.test_stock_on_checkout_page import replacing, signed_in, start
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, wait_for
from tests.e2e.paid_on_chain.test_stock_paid_on_chain import shirt_stock, usdt_quote
from tests.harness import TLS, Service

PAYER = 6


@pytest.fixture
def page(paygate: Service) -> Iterator[httpx.Client]:
    """The hosted page's own calls: no API key."""
    with httpx.Client(base_url=paygate.http_url, timeout=30, verify=TLS) as client:
        yield client


def test_editing_a_checkout_whose_payment_is_on_its_way_keeps_its_hold(
        chain: Chain, shop: httpx.Client, page: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(shop)
    change_variants(shop, product, {"inventory_quantity": 1}, {})
    first = ok(start(page, link, **signed_in(shop)))
    intent_id = first["payment_intent_id"]
    quote = usdt_quote(shop, intent_id)
    chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    wait_for(shop, intent_id, lambda i: i["status"] == "Processing")
    body = fails(start(page, link, **replacing(first)), 400, "parameter_invalid", "primary_variant.variant_id")
    assert "held by payments in progress" in body["msg"]
    processing = ok(shop.get(f"/v1/payment_intents/{intent_id}"))
    assert (processing["status"], processing["canceled_at"]) == ("Processing", 0)
    fails(buy(shop, link), 400, "parameter_invalid", "primary_variant.variant_id")  # another shopper
    chain.mine(3)
    wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    assert shirt_stock(shop, product) == 0
