"""Shapes a real client of this API family reads (DESIGN §12, the settlements at its end; issue 9 "loose ends").

The refund-order and payable-with-Anvil tests run on the session's Anvil through the refunds fixtures.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.http.builders import payment_link, variant_product
from tests.e2e.refunds.conftest import Shop, chain, paygate, shop  # noqa: F401  (fixtures on the session's Anvil)
from tests.e2e.refunds.support import paid_intent, refund
from tests.harness import TEST_NETWORKS, TLS, Service, free_port, start, stop

TEST_ASSETS = {"ETH-ETH-TEST", "USDT-ETH-TEST", "USDC-ETH-TEST"}

# ---------------------------------------------------------------- GET /v1/assets/fees


def test_asset_fees_answer_network_fees_keyed_by_asset_id(api: httpx.Client) -> None:
    data = ok(api.get("/v1/assets/fees"))
    fees = data["network_fees"]
    assert isinstance(fees, dict) and set(fees) == TEST_ASSETS, fees
    for asset_id, fee in fees.items():
        assert set(fee) == {"min_payout_amount", "fee_amount"}, (asset_id, fee)
        for value in fee.values():
            assert isinstance(value, str) and Decimal(value) >= 0, (asset_id, fee)


# ---------------------------------------------------------------- POST /v1/payment_intents/link


def test_create_on_the_link_path_answers_data_payment_intent(api: httpx.Client) -> None:
    product = variant_product(api, prices=("10.00",))
    link = payment_link(api, product)
    data = ok(api.post("/v1/payment_intents/link", json={"payment_link_id": link["id"]}))
    assert set(data) == {"payment_intent"}, data
    assert data["payment_intent"]["id"].startswith("pi_") and data["payment_intent"]["object"] == "payment_intent"


def test_create_on_the_primary_path_still_answers_the_intent_itself(api: httpx.Client) -> None:
    data = ok(api.post("/v1/payment_intents", json={"amount": "5.00", "currency": "USD"}))
    assert data["id"].startswith("pi_") and data["object"] == "payment_intent"


# ---------------------------------------------------------------- unbound paths


@pytest.mark.parametrize("path", ["/v1/payment_intents/invoices", "/v1/payment_intents/preview",
                                  "/v1/payment_intents/some_thing", "/v1/payment_intents/invoice_items",
                                  "/v1/payment_intents/some_thing/cancel"])
def test_an_unbound_literal_path_under_payment_intents_is_not_found(api: httpx.Client, path: str) -> None:
    fails(api.post(path, json={}), 404, "not_found")


@pytest.mark.parametrize("path", ["/v1/payment_intents/some_thing", "/v1/customers/no_such_path"])
def test_an_unbound_path_with_an_underscore_is_not_read_as_an_id(api: httpx.Client, path: str) -> None:
    fails(api.get(path), 404, "not_found")


def test_the_invoice_literal_is_the_invoice_payment_intent_call(api: httpx.Client) -> None:
    fails(api.post("/v1/payment_intents/invoice", json={}), 400, "parameter_missing", "invoice_id")


def test_an_unknown_intent_id_is_still_payment_intent_not_found(api: httpx.Client) -> None:
    fails(api.post("/v1/payment_intents/pi_unknown", json={"description": "x"}), 404, "payment_intent_not_found")


# ---------------------------------------------------------------- GET /v1/merchants/me


def test_current_merchant_answers_merchant_id(api: httpx.Client, merchant: dict[str, Any]) -> None:
    data = ok(api.get("/v1/merchants/me"))
    assert data["merchant_id"] == merchant["merchant_id"] == data["id"]


# ---------------------------------------------------------------- refunds: the order of the checks


def test_an_over_large_refund_on_an_empty_treasury_is_refund_amount_exceeded(
        chain: Chain, shop: Shop) -> None:  # noqa: F811
    intent = paid_intent(chain, shop, amount="2.00")
    fails(refund(shop, intent["id"], "2.01"), 400, "refund_amount_exceeded")


# ---------------------------------------------------------------- payable: a recent answer from the network's RPC


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def silent_rpc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A paygate whose ETH-TEST RPC is a closed port: nothing answers its probe."""
    workdir = Path(tmp_path_factory.mktemp(f"silent-rpc-{request.param}"))
    networks = workdir / "networks.toml"
    networks.write_text(TEST_NETWORKS.replace("127.0.0.1:8545", f"127.0.0.1:{free_port()}"))
    svc = start(request.param, workdir / "svc", networks_file=networks)
    yield svc
    stop(svc)


@pytest.fixture
def silent_api(silent_rpc: Service) -> Iterator[httpx.Client]:
    merchant = silent_rpc.create_merchant()
    with httpx.Client(base_url=silent_rpc.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as api:
        yield api


def test_an_asset_whose_rpc_does_not_answer_is_not_payable(silent_api: httpx.Client) -> None:
    assets = {a["id"]: a for a in ok(silent_api.get("/v1/assets"))["assets"]}
    assert not [i for i in TEST_ASSETS if assets[i]["payable"] is not False], assets


@pytest.mark.parametrize("asset_id", sorted(TEST_ASSETS))
def test_no_payment_attempt_opens_on_an_asset_whose_rpc_does_not_answer(silent_api: httpx.Client,
                                                                       asset_id: str) -> None:
    intent = ok(silent_api.post("/v1/payment_intents", json={"amount": "10.00", "currency": "USD"}))
    body = fails(silent_api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": asset_id}}}),
        400, "parameter_invalid", "payment_method_options.crypto.asset_id")
    assert "not payable now" in body["msg"], body
    after = ok(silent_api.get(f"/v1/payment_intents/{intent['id']}"))
    assert after["status"] == "RequiresPaymentMethod" and after["charges"] == [], after


def test_no_permanent_deposit_is_promised_in_an_asset_whose_rpc_does_not_answer(silent_api: httpx.Client) -> None:
    customer = ok(silent_api.post("/v1/customers", json={"email": "ann@example.com"}))
    fails(silent_api.post("/v1/payment_intents", json={
        "amount": "10.00", "currency": "USD", "customer": customer["id"], "permanent_deposit": True,
        "permanent_deposit_asset_id": "USDT-ETH-TEST"}), 400, "parameter_invalid", "permanent_deposit_asset_id")
    assert ok(silent_api.get("/v1/payment_intents"))["total"] == 0


def test_an_asset_whose_rpc_answers_is_payable(paygate: Service) -> None:  # noqa: F811
    merchant = paygate.create_merchant()
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as api:
        assets = {a["id"]: a for a in ok(api.get("/v1/assets"))["assets"]}
    assert all(assets[i]["payable"] is True for i in TEST_ASSETS), assets


def test_the_checkout_lists_the_assets_whose_rpc_answers(paygate: Service) -> None:  # noqa: F811
    merchant = paygate.create_merchant()
    response = httpx.get(f"{paygate.http_url}/merchants/{merchant['merchant_id']}/assets",
                         params={"key": merchant["test"]["public_key"]}, timeout=30, verify=TLS)
    assert {a["id"] for a in ok(response)["assets"] if not a["is_fiat"]} == TEST_ASSETS
