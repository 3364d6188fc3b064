"""Hostile input on the treasury's endpoints: the envelope's clear error, nothing stored, never a 5xx (both
databases; PostgreSQL cannot even hold a NUL)."""

from __future__ import annotations

import httpx

from tests.conftest import fails, ok


def test_nul_in_a_filter_or_a_field_is_parameter_invalid(api: httpx.Client) -> None:
    fails(api.get("/v1/addresses", params={"network": "a\u0000b"}), 400, "parameter_invalid", "network")
    fails(api.post("/v1/addresses", json={"network": "ETH-TEST", "address": "0x" + "1" * 40, "alias": "a\u0000b"}),
          400, "parameter_invalid", "alias")
    fails(api.post("/v1/payouts", json={"source_coin": "USDT-ETH-TEST", "source_amount": "1",
                                        "receive_account_id": "ma_\u0000"}), 400, "parameter_invalid")
    assert ok(api.get("/v1/addresses"))["total"] == 0


def test_amounts_that_are_not_decimals_are_refused(api: httpx.Client) -> None:
    for bad in ("abc", "-1", "0", "1e400", "NaN"):
        fails(api.post("/v1/payouts/preview", json={"source_coin": "USDT-ETH-TEST", "source_amount": bad,
                                                    "receive_address": "0x" + "1" * 40}),
              400, "parameter_invalid", "source_amount")


def test_a_coin_as_source_coin_needs_the_asset_it_is_the_coin_of(api: httpx.Client) -> None:
    """DESIGN §17: the SDK sends the coin (`USDT`) and names the asset in receive_asset_id."""
    to = {"receive_address": "0x" + "1" * 40}
    fails(api.post("/v1/payouts/preview", json={"source_coin": "ETH", "receive_asset_id": "USDT-ETH-TEST",
                                                "source_amount": "1", **to}), 400, "parameter_invalid", "source_coin")
    fails(api.post("/v1/payouts/preview", json={"source_coin": "USDT", "source_amount": "1", **to}),
          400, "parameter_invalid", "source_coin")
    fails(api.post("/v1/payouts/preview", json={"source_coin": "USDT", "receive_asset_id": "USDT-NOWHERE",
                                                "source_amount": "1", **to}),
          400, "parameter_invalid", "receive_asset_id")
    fails(api.post("/v1/payouts", json={"source_coin": "USDT-ETH-TEST", "receive_asset_id": "ETH-ETH-TEST",
                                        "source_amount": "1", **to}), 400, "parameter_invalid", "receive_asset_id")
    # The coin and its asset get past the asset: what stops this one is its unverified address.
    fails(api.post("/v1/payouts/preview", json={"source_coin": "USDT", "receive_asset_id": "USDT-ETH-TEST",
                                                "source_amount": "1", **to}), 400, "parameter_invalid",
          "receive_address")
    assert ok(api.get("/v1/payouts"))["payouts"] == []


def test_lists_answer_empty_for_a_new_merchant(api: httpx.Client) -> None:
    assert ok(api.get("/v1/sweeps")) == {"sweeps": [], "total": 0, "page": 0, "page_size": 10}
    assert ok(api.get("/v1/payouts")) == {"payouts": [], "total": 0, "page": 0, "page_size": 10}
    assert ok(api.get("/v1/addresses"))["merchant_addresses"] == []
