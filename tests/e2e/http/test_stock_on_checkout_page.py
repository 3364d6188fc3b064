"""Stock held by open checkouts (server/products/stock.py) as the hosted checkout page sees it: the page shows a
variant whose units are all held unavailable (and available again when the holding intent ends); a shopper who
edits their order replaces their own checkout, whose hold ends with it (`replaces_payment_intent_id` +
`replaces_client_secret` of `POST /checkout/sessions`); an open checkout of a deleted payment link still holds its
units. A replaced checkout with money in flight keeps its hold: tests/e2e/paid_on_chain/test_stock_on_checkout_edit.py.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.builders import payment_link
from tests.e2e.http.test_payment_link_availability import ADDON, buy, change_variants, intents_of, shirt_with_a_sticker
from tests.e2e.http.test_stock import shirts_in_stock


def page(anonymous: httpx.Client, link: dict[str, Any]) -> tuple[list[bool], list[bool]]:
    """What the hosted page shows `available`: of the primary variants, of the add-ons."""
    shown = ok(anonymous.get(f"/checkout/links/{link['id']}"))
    return ([v["available"] for v in shown["primary_variants"]],
            [a["variant"]["available"] for a in shown["addon_variants"]])


def start(anonymous: httpx.Client, link: dict[str, Any], stickers: int = 0, **fields: Any) -> httpx.Response:
    """The page's `Continue`: one shirt (and `stickers`), signed in and replacing what `fields` say."""
    shirt = link["primary_variants"][0]["variant_id"]
    sticker = link["addon_variants"][0]["variant_id"]
    return anonymous.post("/checkout/sessions", json={
        "payment_link_id": link["id"], "primary_variant": {"variant_id": shirt, "quantity": 1},
        "addons": [{"variant_id": sticker, "quantity": stickers}] if stickers else [], **fields})


def signed_in(api: httpx.Client) -> dict[str, str]:
    return {"ephemeral_token": ok(api.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "ann@example.com", "provider": "telegram"}))["token"]}


def replacing(started: dict[str, Any]) -> dict[str, str]:
    """What the page sends when the shopper edits the order of `started` and continues again."""
    return {"auth_token": started["auth_token"], "replaces_payment_intent_id": started["payment_intent_id"],
            "replaces_client_secret": started["client_secret"]}


def status_of(api: httpx.Client, intent_id: str) -> dict[str, Any]:
    return ok(api.get(f"/v1/payment_intents/{intent_id}"))  # type: ignore[no-any-return]


# ---------------------------------------------------------------- the page's `available`


def test_the_page_shows_a_unit_held_by_an_open_checkout_unavailable_until_it_ends(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    assert page(anonymous, link) == ([True], [True])
    held = ok(buy(api, link))
    assert page(anonymous, link) == ([False], [True])
    ok(api.post(f"/v1/payment_intents/{held['id']}/cancel", json={}))
    assert page(anonymous, link) == ([True], [True])


def test_the_page_counts_what_is_held_of_each_variant(api: httpx.Client, anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 2, stickers=1)
    ok(buy(api, link, stickers=1))
    assert page(anonymous, link) == ([True], [False])  # one shirt left, no sticker


# ---------------------------------------------------------------- editing the order


def test_editing_the_order_replaces_the_shoppers_own_checkout(api: httpx.Client, anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    first = ok(start(anonymous, link, **signed_in(api)))
    second = ok(start(anonymous, link, stickers=1, **replacing(first)))  # not refused: the unit was their own
    replaced = status_of(api, first["payment_intent_id"])
    assert (replaced["status"], replaced["cancellation_reason"]) == ("Canceled", "replaced")
    assert replaced["canceled_at"] > 0
    assert status_of(api, second["payment_intent_id"])["status"] == "RequiresPaymentMethod"
    events = ok(api.get("/v1/events", params={"page_size": 100}))["events"]  # newest first
    assert [e["type"] for e in events if e["data"]["object"]["id"] == first["payment_intent_id"]] == [
        "payment_intent.canceled", "payment_intent.created"]
    fails(buy(api, link), 400, "parameter_invalid", "primary_variant.variant_id")  # the new checkout holds it
    assert intents_of(api) == 2


def test_a_refused_edit_leaves_the_checkout_it_would_replace_open(api: httpx.Client,
                                                                  anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 1, stickers=0)
    first = ok(start(anonymous, link, **signed_in(api)))
    fails(start(anonymous, link, stickers=1, **replacing(first)), 400, "parameter_invalid", "addons[0].variant_id")
    assert status_of(api, first["payment_intent_id"])["status"] == "RequiresPaymentMethod"
    fails(buy(api, link), 400, "parameter_invalid", "primary_variant.variant_id")  # still held by it
    assert intents_of(api) == 1


def test_only_the_shopper_holding_the_client_secret_replaces_a_checkout(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    first = ok(start(anonymous, link, **signed_in(api)))
    wrong = {**replacing(first), "replaces_client_secret": "pi_secret_wrong"}
    fails(start(anonymous, link, **wrong), 400, "parameter_invalid", "replaces_payment_intent_id")
    unknown = {**replacing(first), "replaces_payment_intent_id": "pi_unknown"}
    fails(start(anonymous, link, **unknown), 400, "parameter_invalid", "replaces_payment_intent_id")
    no_secret = {k: v for k, v in replacing(first).items() if k != "replaces_client_secret"}
    fails(start(anonymous, link, **no_secret), 400, "parameter_invalid", "replaces_client_secret")
    assert status_of(api, first["payment_intent_id"])["status"] == "RequiresPaymentMethod"


def test_a_checkout_of_another_link_is_not_replaced(api: httpx.Client, anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 5)
    other = shirts_in_stock(api, 5)
    first = ok(start(anonymous, other, **signed_in(api)))
    fails(start(anonymous, link, **replacing(first)), 400, "parameter_invalid", "replaces_payment_intent_id")
    assert status_of(api, first["payment_intent_id"])["status"] == "RequiresPaymentMethod"


def test_replacing_an_ended_checkout_changes_nothing(api: httpx.Client, anonymous: httpx.Client) -> None:
    link = shirts_in_stock(api, 1)
    first = ok(start(anonymous, link, **signed_in(api)))
    ok(api.post(f"/v1/payment_intents/{first['payment_intent_id']}/cancel", json={"reason": "by the merchant"}))
    ok(start(anonymous, link, **replacing(first)))
    assert status_of(api, first["payment_intent_id"])["cancellation_reason"] == "by the merchant"


# ---------------------------------------------------------------- deleted links


def test_an_open_checkout_of_a_deleted_link_still_holds_its_units(api: httpx.Client,
                                                                  anonymous: httpx.Client) -> None:
    product, link = shirt_with_a_sticker(api)
    change_variants(api, product, {"inventory_quantity": 1}, {})
    shirt, sticker = link["primary_variants"][0]["variant_id"], link["addon_variants"][0]["variant_id"]
    other = payment_link(api, product, primary=[shirt], addon_variants=[{"variant_id": sticker, **ADDON}])
    held = ok(buy(api, link))
    ok(api.post(f"/v1/payment_links/{link['id']}", json={"active": False}))
    api.delete(f"/v1/payment_links/{link['id']}").raise_for_status()
    fails(buy(api, other), 400, "parameter_invalid", "primary_variant.variant_id")
    assert page(anonymous, other) == ([False], [True])
    ok(api.post(f"/v1/payment_intents/{held['id']}/cancel", json={}))
    ok(buy(api, other))
