"""Bounded payment attempts: one open charge (and deposit address) per asset per intent, and no zero-amount intents."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.builders import fixed_price_product, payment_link, variant_product
from tests.e2e.payment_intents.support import TEST_ETH, TEST_USDT, choose, create, crypto

ROUNDS = 50


def _open_by_asset(intent: dict[str, Any]) -> dict[str, set[str]]:
    """Deposit addresses of the intent's open (Pending) charges, by asset."""
    out: dict[str, set[str]] = {}
    for charge in intent["charges"]:
        if charge["status"] == "Pending":
            options = charge["payment_method_options"]["crypto"]
            out.setdefault(options["asset_id"], set()).add(options["deposit_address"])
    return out


def test_alternating_assets_on_the_update_call_keeps_one_open_charge_per_asset(api: httpx.Client) -> None:
    pi = create(api)
    for i in range(ROUNDS):
        asset = (TEST_ETH, TEST_USDT)[i % 2]
        shown = choose(api, pi["id"], asset)
        # The answer shows the attempt of the asset just chosen.
        assert shown["payment_method_options"]["crypto"]["asset_id"] == asset
    final = ok(api.get(f"/v1/payment_intents/{pi['id']}"))
    assert len(final["charges"]) == 2
    assert {a: len(addresses) for a, addresses in _open_by_asset(final).items()} == {TEST_ETH: 1, TEST_USDT: 1}


def test_alternating_assets_on_the_checkout_update_call_keeps_one_open_charge_per_asset(
        anonymous: httpx.Client, api: httpx.Client, merchant: dict[str, Any]) -> None:
    pi = create(api)
    creds = {"key": merchant["test"]["public_key"], "client_secret": pi["client_secret"]}
    addresses: dict[str, set[str]] = {}
    for i in range(ROUNDS):
        asset = (TEST_USDT, TEST_ETH)[i % 2]
        got = ok(anonymous.post(f"/payment_intents/link/{pi['id']}/update", json={**creds, **crypto(asset)}))
        options = got["payment_method_options"]["crypto"]
        assert options["asset_id"] == asset
        addresses.setdefault(asset, set()).add(options["deposit_address"])
    assert {a: len(s) for a, s in addresses.items()} == {TEST_USDT: 1, TEST_ETH: 1}
    assert len(ok(api.get(f"/v1/payment_intents/{pi['id']}"))["charges"]) == 2


def test_an_intent_for_a_payment_link_priced_at_zero_is_refused(api: httpx.Client) -> None:
    link = payment_link(api, fixed_price_product(api, amount="0"))
    fails(api.post("/v1/payment_intents", json={"payment_link_id": link["id"]}), 400, "parameter_invalid",
          "payment_link_id")
    fails(api.post("/v1/payment_intents/link", json={"payment_link_id": link["id"], "amount": "0"}), 400,
          "parameter_invalid", "payment_link_id")


def test_an_intent_for_a_free_variant_of_a_payment_link_is_refused_and_a_priced_one_is_not(
        api: httpx.Client) -> None:
    product = variant_product(api, prices=("0.00", "12.50"))
    free, priced = (v["id"] for v in product["variants"])
    link = payment_link(api, product)
    fails(api.post("/v1/payment_intents", json={"payment_link_id": link["id"],
                                                "primary_variant": {"variant_id": free}}),
          400, "parameter_invalid", "payment_link_id")
    pi = ok(api.post("/v1/payment_intents", json={"payment_link_id": link["id"],
                                                  "primary_variant": {"variant_id": priced}}))
    assert pi["amount"]["amount"] == "12.50"


def test_a_direct_intent_of_zero_is_refused_naming_amount(api: httpx.Client) -> None:
    for zero in ("0", "0.00"):
        fails(api.post("/v1/payment_intents", json={"amount": zero, "currency": "USD"}), 400, "parameter_invalid",
              "amount")
