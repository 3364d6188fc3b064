"""`GET /v1/stats/balance` (DESIGN §15) after real payments on Anvil: the ledger's sums, per asset and in USD."""

from __future__ import annotations

from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import paid_intent
from tests.e2e.treasury.conftest import Merchant
from tests.harness import TLS, Service


def balance(api: httpx.Client) -> dict[str, Any]:
    return ok(api.get("/v1/stats/balance"))  # type: ignore[no-any-return]


def detail(found: dict[str, Any], asset_id: str) -> dict[str, Any]:
    (one,) = [d for d in found["balance_details"] if d["currency"] == asset_id]
    return one  # type: ignore[no-any-return]


def test_a_new_merchant_has_a_zero_balance_in_usd(shop: Shop) -> None:
    assert balance(shop.api) == {"currency": "USD", "available_balance": "0", "pending_balance": "0",
                                 "locked_balance": "0", "frozen_balance": "0", "total_balance": "0",
                                 "balance_details": []}


def test_paid_intents_are_available_less_the_processing_fee(chain: Chain, shop: Shop) -> None:
    paid_intent(chain, shop, "USDT-ETH-TEST", "10.50")
    paid_intent(chain, shop, "ETH-ETH-TEST", "30")  # 0.01 ETH at 3000 USD
    found = balance(shop.api)
    assert detail(found, "USDT-ETH-TEST") == {
        "currency": "USDT-ETH-TEST", "available_balance": "10.395", "pending_balance": "0", "locked_balance": "0",
        "frozen_balance": "0", "total_balance": "10.395"}  # 10.50 less 1%
    assert detail(found, "ETH-ETH-TEST")["available_balance"] == "0.0099"
    # 10.395 USD + 0.0099 ETH at 3000 = 10.395 + 29.7 = 40.095 → 40.10 (USD's two decimals, half up)
    assert found["available_balance"] == "40.1" and found["total_balance"] == "40.1"
    assert found["pending_balance"] == found["locked_balance"] == found["frozen_balance"] == "0"


def test_neither_the_live_key_nor_another_merchant_sees_it(chain: Chain, shop: Merchant, paygate: Service) -> None:
    paid_intent(chain, shop, "USDT-ETH-TEST", "2")
    assert detail(balance(shop.api), "USDT-ETH-TEST")["available_balance"] == "1.98"
    assert balance(shop.live)["balance_details"] == [] and balance(shop.live)["total_balance"] == "0"
    other = paygate.create_merchant("Other")
    with httpx.Client(base_url=paygate.http_url, auth=(other["test"]["secret_key"], ""), verify=TLS) as api:
        assert balance(api)["balance_details"] == []


def test_the_totals_are_in_the_settlement_currency_the_operator_sets(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    from tests.harness import paygate as run_paygate

    paid_intent(chain, shop, "USDT-ETH-TEST", "10.80")  # 10.692 USDT available, less the 1 % fee
    merchant_id = shop.merchant["merchant_id"]
    refused = run_paygate(paygate.env, paygate.workdir, "merchants", "set-settlement-currency",
                          "--merchant", merchant_id, "--currency", "USDT-ETH-TEST")
    assert refused.returncode == 2 and "not a fiat currency" in refused.stderr, refused.stderr
    assert balance(shop.api)["currency"] == "USD"
    done = run_paygate(paygate.env, paygate.workdir, "merchants", "set-settlement-currency",
                       "--merchant", merchant_id, "--currency", "eur")
    assert done.returncode == 0, done.stderr
    found = balance(shop.api)
    # EUR at 1.08 USD: 10.692 / 1.08 = 9.9
    assert (found["currency"], found["available_balance"], found["total_balance"]) == ("EUR", "9.9", "9.9")
    assert detail(found, "USDT-ETH-TEST")["available_balance"] == "10.692"
