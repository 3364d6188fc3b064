"""Which payout addresses (`POST /v1/addresses`, DESIGN §15) are refused before anything is stored: the zero address,
an address without its 0x prefix, and an address of paygate's own (any merchant's treasury, any deposit address),
where a payout would only move money inside the gateway. And the verification amount is a strict decimal (§14)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.paid_on_chain.test_paid_on_chain import open_intent
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.test_addresses import create, fresh_address
from tests.harness import TLS, Service

PAYEE = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045"
PAYEE_CHECKSUMMED = "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"


def post(shop: Merchant, address: str) -> httpx.Response:
    return shop.api.post("/v1/addresses", json={"network": "ETH-TEST", "address": address})


def refused(shop: Merchant, address: str) -> str:
    """Checks that `address` is refused naming `address` and that no payout address was stored; the msg."""
    body = fails(post(shop, address), 400, "parameter_invalid", "address")
    assert ok(shop.api.get("/v1/addresses"))["total"] == 0
    return str(body["msg"])


def test_the_zero_address_is_refused(shop: Merchant) -> None:
    assert "zero address" in refused(shop, "0x" + "0" * 40)


def test_an_address_without_the_0x_prefix_is_refused(shop: Merchant) -> None:
    assert "0x" in refused(shop, PAYEE[2:])


def test_the_merchants_own_treasury_is_refused(shop: Merchant) -> None:
    assert "paygate address" in refused(shop, shop.treasury)


def test_the_merchants_live_treasury_is_refused_in_test_mode(shop: Merchant) -> None:
    assert shop.merchant["live"]["treasury_address"]
    assert "paygate address" in refused(shop, shop.merchant["live"]["treasury_address"])


def test_another_merchants_treasury_is_refused(shop: Merchant, paygate: Service) -> None:
    other = paygate.create_merchant("Another shop")
    assert "paygate address" in refused(shop, other["test"]["treasury_address"].lower())


def test_a_deposit_address_of_the_merchant_is_refused(shop: Merchant) -> None:
    _, quote = open_intent(shop.api, "USDT-ETH-TEST", "5")
    assert "paygate address" in refused(shop, quote["deposit_address"])


def test_a_deposit_address_of_another_merchant_is_refused(shop: Merchant, paygate: Service) -> None:
    other = paygate.create_merchant("Another shop")
    with httpx.Client(base_url=paygate.http_url, auth=(other["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        _, quote = open_intent(api, "ETH-ETH-TEST", "5")
    assert "paygate address" in refused(shop, quote["deposit_address"])


def test_the_same_address_in_another_case_is_a_duplicate(shop: Merchant) -> None:
    first = create(shop, PAYEE)
    fails(post(shop, PAYEE_CHECKSUMMED), 409, "address_exists", "address")
    fails(post(shop, "0X" + PAYEE[2:].upper()), 409, "address_exists", "address")
    assert [a["id"] for a in ok(shop.api.get("/v1/addresses"))["merchant_addresses"]] == [first["id"]]


def test_the_same_address_without_0x_is_refused_not_added_twice(shop: Merchant) -> None:
    first = create(shop, PAYEE)
    fails(post(shop, PAYEE[2:]), 400, "parameter_invalid", "address")
    assert [a["id"] for a in ok(shop.api.get("/v1/addresses"))["merchant_addresses"]] == [first["id"]]


@pytest.mark.parametrize("amount", ["2.947E-7", "2.947e-7", "\u0661", "+1", "1_0", " 1", "-0", "NaN", "Infinity"])
def test_a_verification_amount_that_is_not_a_plain_decimal_is_refused_without_costing_a_try(
        shop: Merchant, amount: str) -> None:
    made: dict[str, Any] = create(shop, fresh_address())
    fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"amount": amount}), 400, "parameter_invalid",
          "amount")
    assert ok(shop.api.get(f"/v1/addresses/{made['id']}"))["verification"]["tried_times"] == 0


@pytest.mark.parametrize("signature", ["0x1234", "0x" + "zz" * 65, "11" * 65, "0x" + "11" * 66])
def test_a_signature_that_is_not_65_bytes_of_hex_is_refused_without_renewing_the_nonce(
        shop: Merchant, signature: str) -> None:
    made: dict[str, Any] = create(shop, fresh_address())
    fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"signature": signature}), 400,
          "parameter_invalid", "signature")
    assert ok(shop.api.get(f"/v1/addresses/{made['id']}"))["verification"]["nonce"] == made["verification"]["nonce"]


def test_a_verification_without_signature_or_amount_is_refused(shop: Merchant) -> None:
    made: dict[str, Any] = create(shop, fresh_address())
    fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={}), 400, "parameter_missing", "signature")


def test_a_verification_with_both_signature_and_amount_is_refused(shop: Merchant) -> None:
    made: dict[str, Any] = create(shop, fresh_address())
    fails(shop.api.post(f"/v1/addresses/{made['id']}/verify", json={"signature": "0x" + "11" * 65, "amount": "1"}),
          400, "parameter_invalid", "signature")
