"""Stock held by open checkouts (server/products/stock.py): an intent created from a payment link holds the tracked
units it bought while it is open, so a second shopper cannot start paying for the last unit (`400
parameter_invalid` naming the field, nothing created); canceling or expiring the intent gives them back. Untracked
variants (no `inventory_quantity`) are never held. Sales by card: tests/e2e/cards/test_stock_sold_by_card.py."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.test_payment_link_availability import buy, change_variants, intents_of, shirt_with_a_sticker
from tests.e2e.payment_intents.support import run_expiry_job
from tests.harness import Service


def shirts_in_stock(api: httpx.Client, shirts: int, stickers: int | None = None) -> dict[str, Any]:
    """The link of `shirt_with_a_sticker`, its shirt tracked with `shirts` units (the sticker with `stickers`)."""
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {"inventory_quantity": shirts},
                    {} if stickers is None else {"inventory_quantity": stickers})
    return link


def canceled_soon(api: httpx.Client, intent_id: str, seconds: float = 10) -> bool:
    """Whether the intent reads Canceled within `seconds`: on PostgreSQL the job skips a row the service's own
    scheduler is expiring at that moment (SKIP LOCKED), and that commit lands just after."""
    deadline = time.monotonic() + seconds
    while ok(api.get(f"/v1/payment_intents/{intent_id}"))["status"] != "Canceled":
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_second_checkout_for_the_last_unit_is_refused(api: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    ok(buy(api, link))
    body = fails(buy(api, link), 400, "parameter_invalid", "primary_variant.variant_id")
    assert "sold out" in body["msg"] and "held by payments in progress" in body["msg"]
    assert intents_of(api) == 1


def test_open_checkouts_leave_only_the_rest_for_sale(api: httpx.Client) -> None:
    link = shirts_in_stock(api, 3)
    ok(buy(api, link, quantity=2))
    body = fails(buy(api, link, quantity=2), 400, "parameter_invalid", "primary_variant.quantity")
    assert "only 1 left in stock" in body["msg"]
    ok(buy(api, link, quantity=1))
    assert intents_of(api) == 2


def test_an_addon_held_by_another_checkout_is_refused_on_its_field(api: httpx.Client) -> None:
    link = shirts_in_stock(api, 5, stickers=2)
    ok(buy(api, link, stickers=2))
    fails(buy(api, link, stickers=1), 400, "parameter_invalid", "addons[0].variant_id")
    ok(buy(api, link))  # the shirt alone is still for sale
    assert intents_of(api) == 2


def test_canceling_a_checkout_gives_its_units_back(api: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    first = ok(buy(api, link))
    fails(buy(api, link), 400, "parameter_invalid", "primary_variant.variant_id")
    ok(api.post(f"/v1/payment_intents/{first['id']}/cancel", json={}))
    ok(buy(api, link))


def test_an_expired_checkout_gives_its_units_back(api: httpx.Client, service: Service) -> None:
    link = shirts_in_stock(api, 1)
    shirt = link["primary_variants"][0]["variant_id"]
    # 2 s: `expired_at` is in whole seconds, so a 1 s checkout may lapse before the next request.
    first = ok(api.post("/v1/payment_intents", json={"payment_link_id": link["id"], "expires_in": 2,
                                                     "primary_variant": {"variant_id": shirt}}))
    fails(buy(api, link), 400, "parameter_invalid", "primary_variant.variant_id")
    time.sleep(max(0.0, first["expired_at"] - time.time()) + 0.2)
    ok(buy(api, link))  # at its expiry, before the expiry job cancels it
    run_expiry_job(service)
    assert canceled_soon(api, first["id"])


def test_concurrent_checkouts_for_the_last_unit_sell_it_once(api: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: buy(api, link), range(8)))
    assert sorted(a.status_code for a in answers) == [200] + [400] * 7
    for refused in (a for a in answers if a.status_code != 200):
        fails(refused, 400, "parameter_invalid", "primary_variant.variant_id")
    assert intents_of(api) == 1


def test_untracked_variants_are_never_held(api: httpx.Client) -> None:
    _, link = shirt_with_a_sticker(api)  # neither variant has an inventory_quantity
    for _ in range(3):
        ok(buy(api, link, quantity=50, stickers=3))
    assert intents_of(api) == 3


def test_the_checkout_page_call_refuses_a_unit_held_by_another_checkout(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    ok(buy(api, link))
    token = ok(api.post("/v1/customers/ephemeral_tokens", json={}))["token"]
    started = anonymous.post("/checkout/sessions", json={"payment_link_id": link["id"], "ephemeral_token": token})
    fails(started, 400, "parameter_invalid", "primary_variant.variant_id")
    assert intents_of(api) == 1
