"""`GET /checkout/links/{payment_link_id}`: a payment link's public view, what the hosted page renders. No key is
needed (a link is public); a public key, when given, must be the link's merchant's and mode's. An inactive link is
there with `active` false and nothing to buy; an unknown one is `404 payment_link_not_found`."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.builders import inactive_payment_link, payment_link, selling_plan, variant_ids, variant_product
from tests.e2e.http.test_assets import TEST_CRYPTO

UNKNOWN_LINK = "pl_" + "0" * 24


def read(client: httpx.Client, link_id: str, **params: str) -> httpx.Response:
    return client.get(f"/checkout/links/{link_id}", params=params)


def test_an_anonymous_read_shows_the_link_its_merchant_and_its_public_key(
        api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any]) -> None:
    product = variant_product(api)
    link = payment_link(api, product, return_url="https://shop.example/thanks")
    data = ok(read(anonymous, link["id"]))
    assert (data["id"], data["active"], data["livemode"], data["url"]) == (link["id"], True, False, link["url"])
    assert data["merchant_id"] == merchant["merchant_id"] and data["merchant_name"]
    assert data["public_key"] == merchant["test"]["public_key"]
    assert data["return_url"] == "https://shop.example/thanks"
    assert data["product"]["id"] == product["id"] and data["product"]["name"] == "T-shirt"
    assert isinstance(data["product_version"], int) and data["product_version"] >= 1


def test_the_variants_carry_their_titles_and_prices_and_the_link_its_price_range(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    product = variant_product(api, ("10.00", "12.50"))
    link = payment_link(api, product)
    data = ok(read(anonymous, link["id"]))
    assert data["default_variant_id"] == variant_ids(product)[0]
    assert [(v["variant_id"], v["title"], v["price"], v["available"]) for v in data["primary_variants"]] == [
        (variant_ids(product)[0], "XS", {"amount": "10.00", "currency": "USD"}, True),
        (variant_ids(product)[1], "S", {"amount": "12.50", "currency": "USD"}, True)]
    assert data["price_range"] == {"min": "10.00", "max": "12.50", "currency": "USD"}


def test_a_selling_plan_is_offered_with_its_discounted_price_per_variant(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    product = variant_product(api, ("10.00", "12.50"), selling_plans=[selling_plan()])
    data = ok(read(anonymous, payment_link(api, product)["id"]))
    for variant, after in zip(data["primary_variants"], ("9.00", "11.25"), strict=True):
        (plan,) = variant["selling_plans"]
        assert (plan["name"], plan["billing_cycle"], plan["billing_cycle_interval"], plan["trial_period_days"]) == (
            "Monthly", "month", 1, 7)
        assert plan["pricing_tiers"][0]["subtotal_after_policy"] == after


def test_the_link_offers_crypto_and_the_modes_crypto_assets(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    data = ok(read(anonymous, payment_link(api, variant_product(api))["id"]))
    assert data["payment_method_types"] == ["crypto"]  # no card provider configured for this merchant
    # The assets the link offers; which of them can be paid this minute is /merchants/{id}/assets (RPC health).
    assert set(data["asset_ids"]) == TEST_CRYPTO


def test_an_inactive_link_is_shown_inactive_with_nothing_to_buy(
        api: httpx.Client, anonymous: httpx.Client) -> None:
    link = inactive_payment_link(api, variant_product(api))
    data = ok(read(anonymous, link["id"]))
    assert data["active"] is False and data["primary_variants"] == [] and data["asset_ids"] == []


def test_an_unknown_link_is_not_found(anonymous: httpx.Client) -> None:
    fails(read(anonymous, UNKNOWN_LINK), 404, "payment_link_not_found")


def test_the_links_own_public_key_may_be_sent(
        api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any]) -> None:
    link = payment_link(api, variant_product(api))
    assert ok(read(anonymous, link["id"], key=merchant["test"]["public_key"]))["id"] == link["id"]


def test_another_merchants_public_key_finds_no_link(
        api: httpx.Client, anonymous: httpx.Client, other_merchant: dict[str, Any]) -> None:
    link = payment_link(api, variant_product(api))
    fails(read(anonymous, link["id"], key=other_merchant["test"]["public_key"]), 404, "payment_link_not_found")


def test_the_other_modes_public_key_finds_no_link(
        api: httpx.Client, anonymous: httpx.Client, merchant: dict[str, Any]) -> None:
    link = payment_link(api, variant_product(api))
    fails(read(anonymous, link["id"], key=merchant["live"]["public_key"]), 404, "payment_link_not_found")
