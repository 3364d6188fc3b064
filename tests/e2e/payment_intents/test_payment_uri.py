"""The URI a wallet opens to pay a crypto quote, as the intent's and the charge's JSON answer it: built by the
network's rail (EIP-681 on the shared service's ETH-TEST)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import ok
from tests.e2e.payment_intents.support import TEST_ETH, TEST_USDT, choose, create
from tests.harness import TLS, Service


def listed(service: Service, merchant: dict[str, Any], asset_id: str) -> dict[str, Any]:
    """The asset as the merchant's public listing shows it: its chain id and contract."""
    assets = ok(httpx.get(f"{service.http_url}/merchants/{merchant['merchant_id']}/assets",
                          params={"key": merchant["test"]["public_key"]}, verify=TLS))["assets"]
    return next(a for a in assets if a["id"] == asset_id)  # type: ignore[no-any-return]


def test_a_token_quote_answers_an_eip681_transfer_of_its_amount_in_base_units(
        api: httpx.Client, service: Service, merchant: dict[str, Any]) -> None:
    usdt = listed(service, merchant, TEST_USDT)
    assert usdt["contract_address"] == "0x5FbDB2315678afecb367f032d93F642f64180aa3"  # tests/harness.py
    options = choose(api, create(api)["id"], TEST_USDT)["payment_method_options"]["crypto"]
    assert options["amount"] == "10.5"
    assert options["payment_uri"] == (f"ethereum:{usdt['contract_address']}@{usdt['chain_id']}/transfer"
                                      f"?address={options['deposit_address']}&uint256=10500000")


def test_a_native_quote_answers_an_eip681_value_in_wei(
        api: httpx.Client, service: Service, merchant: dict[str, Any]) -> None:
    chain_id = listed(service, merchant, TEST_ETH)["chain_id"]
    assert chain_id == 31337  # the test node is Anvil
    options = choose(api, create(api)["id"], TEST_ETH)["payment_method_options"]["crypto"]
    assert options["amount"] == "0.0035"  # 10.50 USD at 3000 USD per ETH
    assert options["payment_uri"] == f"ethereum:{options['deposit_address']}@{chain_id}?value=3500000000000000"


def test_the_charge_and_a_later_read_answer_the_same_uri(api: httpx.Client) -> None:
    pi = create(api)
    options = choose(api, pi["id"], TEST_USDT)["payment_method_options"]["crypto"]
    [charge] = ok(api.get(f"/v1/payment_intents/{pi['id']}"))["charges"]
    assert charge["payment_method_options"]["crypto"]["payment_uri"] == options["payment_uri"] != ""
