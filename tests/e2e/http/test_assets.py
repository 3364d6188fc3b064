"""Assets over HTTP: /v1/assets, /v1/assets/all, /assets/all, /v1/assets/fees, /merchants/{id}/assets, and the
caller's own merchant at /v1/merchants/me (spec "Asset", "Assets", "Hosted checkout calls"; DESIGN.md §2, §3, §11).

The test service runs with a networks file that gives ETH-TEST the rpc_url of a real node (a dev chain the test
process starts, `tests/harness.py::node_networks`), and no rpc_url for the production networks.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.rails.evm import devchain
from tests.conftest import basic, fails, ok
from tests.harness import TEST_NETWORKS, TLS, Service, free_port, start, stop

ASSET_FIELDS: dict[str, type] = {
    "id": str, "display_name": str, "coin": str, "is_fiat": bool, "decimals": int, "payable": bool,
    "network": str, "is_mainnet": bool, "contract_address": str, "address_url_template": str,
    "tx_url_template": str, "token": str, "chain_id": int, "symbol": str, "provider": str,
}
TEST_CRYPTO = {"ETH-ETH-TEST", "USDT-ETH-TEST", "USDC-ETH-TEST"}
PRODUCTION_CRYPTO = {"ETH-ETH", "USDT-ETH", "USDC-ETH", "POL-POLYGON", "USDT-POLYGON", "USDC-POLYGON",
                     "BNB-BSC", "USDT-BSC", "USDC-BSC"}
FIAT = {"USD", "EUR"}
# A catalogue where one production network (POLYGON) has an rpc_url, so that live mode has payable assets. Nothing
# calls that RPC: the service runs no scheduler (no watcher).
LIVE_RPC_NETWORKS = TEST_NETWORKS + """
[[networks]]
id = "POLYGON"
rpc_url = "{rpc_url}"
"""
LIVE_PAYABLE = {"POL-POLYGON", "USDT-POLYGON", "USDC-POLYGON"}


@pytest.fixture(scope="module")
def polygon_node() -> Iterator[str]:
    """A real node answering as POLYGON (chain id 137): `payable` means the network's RPC answered recently."""
    port = free_port()
    node = subprocess.Popen([devchain.anvil_binary(), "--host", "127.0.0.1", "--port", str(port), "--chain-id", "137"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
                                    verify=TLS)
                if answer.json().get("result") == "0x89":
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "anvil did not start"
            time.sleep(0.1)
        yield url
    finally:
        node.terminate()
        node.wait(timeout=10)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live_rpc_service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                     polygon_node: str) -> Iterator[Service]:
    workdir = Path(tmp_path_factory.mktemp(f"paygate-live-rpc-{request.param}"))
    networks = workdir / "live-rpc-networks.toml"
    networks.write_text(LIVE_RPC_NETWORKS.format(rpc_url=polygon_node))
    svc = start(request.param, workdir, only=("http", "grpc"), networks_file=networks)
    yield svc
    stop(svc)


def assets_of(response: httpx.Response) -> list[dict[str, Any]]:
    data = ok(response)
    assert isinstance(data, dict) and isinstance(data["assets"], list), data
    return data["assets"]  # type: ignore[no-any-return]


def by_id(assets: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {a["id"]: a for a in assets}


def crypto_ids(assets: list[dict[str, Any]]) -> set[str]:
    return {a["id"] for a in assets if not a["is_fiat"]}


# ---------------------------------------------------------------- GET /v1/assets


def test_list_assets_returns_data_assets_array(api):
    assert len(assets_of(api.get("/v1/assets"))) > 0


def test_every_asset_has_every_field_with_its_json_type(api):
    for asset in assets_of(api.get("/v1/assets")):
        assert set(asset) == set(ASSET_FIELDS), asset
        for name, kind in ASSET_FIELDS.items():
            assert type(asset[name]) is kind, (asset["id"], name, asset[name])


def test_test_key_lists_only_test_network_crypto(api):
    ids = crypto_ids(assets_of(api.get("/v1/assets")))
    assert ids == TEST_CRYPTO


def test_test_key_lists_fiat(api):
    assets = assets_of(api.get("/v1/assets"))
    assert {a["id"] for a in assets if a["is_fiat"]} >= FIAT


def test_live_key_lists_only_mainnet_crypto(live_api):
    assets = assets_of(live_api.get("/v1/assets"))
    assert crypto_ids(assets) == PRODUCTION_CRYPTO
    assert all(a["is_mainnet"] for a in assets if not a["is_fiat"])


def test_live_key_lists_fiat(live_api):
    assets = assets_of(live_api.get("/v1/assets"))
    assert {a["id"] for a in assets if a["is_fiat"]} >= FIAT


# Test network assets are payable only while their RPC answers (DESIGN §12): the rules with a closed port are in
# tests/e2e/http/test_loose_ends.py (this file used to assert "an rpc_url makes them payable").


def test_test_assets_are_payable_while_their_node_answers(api):
    assets = by_id(assets_of(api.get("/v1/assets")))
    assert [assets[i]["payable"] for i in sorted(TEST_CRYPTO)] == [True] * len(TEST_CRYPTO)


def test_production_assets_are_listed_but_not_payable_without_an_rpc_url(live_api):
    assets = by_id(assets_of(live_api.get("/v1/assets")))
    assert all(assets[i]["payable"] is False for i in PRODUCTION_CRYPTO)


def test_test_asset_fields(api):
    usdt = by_id(assets_of(api.get("/v1/assets")))["USDT-ETH-TEST"]
    assert usdt["coin"] == "USDT" and usdt["token"] == "USDT" and usdt["network"] == "ETH-TEST"
    assert usdt["is_mainnet"] is False and usdt["is_fiat"] is False and usdt["decimals"] == 6
    assert usdt["chain_id"] == 31337 and usdt["contract_address"].startswith("0x")


def test_production_asset_fields(live_api):
    usdc = by_id(assets_of(live_api.get("/v1/assets")))["USDC-POLYGON"]
    assert usdc["chain_id"] == 137 and usdc["is_mainnet"] is True and usdc["network"] == "POLYGON"
    assert "%s" in usdc["address_url_template"] and "%s" in usdc["tx_url_template"]


def test_fiat_asset_fields(api):
    usd = by_id(assets_of(api.get("/v1/assets")))["USD"]
    assert usd["is_fiat"] is True and usd["coin"] == "USD" and usd["symbol"] == "$"
    assert usd["provider"] == "provider_a" and usd["chain_id"] == 0 and usd["decimals"] == 2


def test_list_assets_needs_a_key(anonymous):
    fails(anonymous.get("/v1/assets"), 401, "unauthorized")


# ---------------------------------------------------------------- GET /v1/assets/all and /assets/all


def test_all_assets_needs_no_key(anonymous):
    assert len(assets_of(anonymous.get("/v1/assets/all"))) > 0


def test_all_assets_lists_test_production_and_fiat(anonymous):
    ids = {a["id"] for a in assets_of(anonymous.get("/v1/assets/all"))}
    assert ids >= TEST_CRYPTO | PRODUCTION_CRYPTO | FIAT


def test_all_assets_have_every_field(anonymous):
    for asset in assets_of(anonymous.get("/v1/assets/all")):
        assert set(asset) == set(ASSET_FIELDS), asset


def test_all_assets_ignores_a_wrong_key(service):
    with httpx.Client(base_url=service.http_url, headers={"Authorization": basic("sk_test_nope")},
                      verify=TLS) as client:
        assert len(assets_of(client.get("/v1/assets/all"))) > 0


def test_checkout_all_assets_returns_data_as_a_bare_array(anonymous):
    data = ok(anonymous.get("/assets/all"))
    assert isinstance(data, list) and len(data) > 0
    assert set(data[0]) == set(ASSET_FIELDS)


def test_checkout_all_assets_lists_the_same_assets_as_v1(anonymous):
    bare = ok(anonymous.get("/assets/all"))
    assert bare == assets_of(anonymous.get("/v1/assets/all"))


# ---------------------------------------------------------------- GET /v1/assets/fees


def test_asset_fees_shape(api):
    data = ok(api.get("/v1/assets/fees"))
    assert isinstance(data["fees"], list) and data["fees"]
    for fee in data["fees"]:
        assert type(fee["asset_id"]) is str
        assert type(fee["tx_fee_percent"]) is str and Decimal(fee["tx_fee_percent"]) >= 0


def test_asset_fees_cover_the_modes_crypto_assets(api):
    fees = ok(api.get("/v1/assets/fees"))["fees"]
    assert {f["asset_id"] for f in fees} == TEST_CRYPTO


def test_asset_fees_in_live_mode_cover_production_assets(live_api):
    fees = ok(live_api.get("/v1/assets/fees"))["fees"]
    assert {f["asset_id"] for f in fees} == PRODUCTION_CRYPTO


def test_asset_fees_need_a_key(anonymous):
    fails(anonymous.get("/v1/assets/fees"), 401, "unauthorized")


# ---------------------------------------------------------------- GET /merchants/{id}/assets


def test_merchant_assets_without_key_are_none_when_no_live_network_is_payable(anonymous, merchant):
    # The test catalogue gives no production network an rpc_url and configures no card provider.
    assert assets_of(anonymous.get(f"/merchants/{merchant['merchant_id']}/assets")) == []


def test_merchant_assets_without_key_are_the_live_payable_assets(live_rpc_service):
    merchant = live_rpc_service.create_merchant()
    with httpx.Client(base_url=live_rpc_service.http_url, verify=TLS) as anonymous:
        assets = assets_of(anonymous.get(f"/merchants/{merchant['merchant_id']}/assets"))
    assert {a["id"] for a in assets} == LIVE_PAYABLE
    assert [a["payable"] for a in assets] == [True] * len(LIVE_PAYABLE)


def test_merchant_assets_with_test_public_key_are_payable_test_assets(anonymous, merchant):
    response = anonymous.get(f"/merchants/{merchant['merchant_id']}/assets",
                             params={"key": merchant["test"]["public_key"]})
    assets = assets_of(response)
    # Only the payable ones: all three on Anvil (test_loose_ends.py), none while the harness's RPC is down.
    assert crypto_ids(assets) <= TEST_CRYPTO
    assert all(a["payable"] for a in assets)


def test_merchant_assets_with_live_public_key_are_the_live_payable_assets_only(live_rpc_service):
    # ETH-TEST is payable in this service too: a live key must still not see it.
    merchant = live_rpc_service.create_merchant()
    with httpx.Client(base_url=live_rpc_service.http_url, verify=TLS) as anonymous:
        response = anonymous.get(f"/merchants/{merchant['merchant_id']}/assets",
                                 params={"key": merchant["live"]["public_key"]})
    assert {a["id"] for a in assets_of(response)} == LIVE_PAYABLE


def test_merchant_assets_have_every_field(anonymous, merchant):
    response = anonymous.get(f"/merchants/{merchant['merchant_id']}/assets",
                             params={"key": merchant["test"]["public_key"]})
    for asset in assets_of(response):
        assert set(asset) == set(ASSET_FIELDS)


def test_merchant_assets_of_unknown_merchant_answer_as_for_a_known_one(anonymous, merchant):
    # No oracle of merchant existence on a public endpoint (was 404 merchant_not_found).
    unknown = anonymous.get("/merchants/mch_000000000000000000000000/assets")
    known = anonymous.get(f"/merchants/{merchant['merchant_id']}/assets")
    assert unknown.status_code == known.status_code == 200 and unknown.json() == known.json()


def test_merchant_assets_of_unknown_merchant_with_a_key_is_unauthorized_as_a_wrong_key(anonymous, merchant):
    response = anonymous.get("/merchants/mch_000000000000000000000000/assets",
                             params={"key": merchant["test"]["public_key"]})
    fails(response, 401, "unauthorized")


def test_merchant_assets_with_another_merchants_public_key_is_unauthorized(anonymous, merchant, other_merchant):
    response = anonymous.get(f"/merchants/{merchant['merchant_id']}/assets",
                             params={"key": other_merchant["test"]["public_key"]})
    fails(response, 401, "unauthorized")


def test_merchant_assets_with_an_unknown_public_key_is_unauthorized(anonymous, merchant):
    response = anonymous.get(f"/merchants/{merchant['merchant_id']}/assets", params={"key": "pk_test_nope"})
    fails(response, 401, "unauthorized")


def test_merchant_assets_refuse_a_secret_key_in_the_query(anonymous, merchant):
    response = anonymous.get(f"/merchants/{merchant['merchant_id']}/assets",
                             params={"key": merchant["test"]["secret_key"]})
    fails(response, 401, "unauthorized")


# ---------------------------------------------------------------- GET /v1/merchants/me


def test_current_merchant_identity(api, merchant):
    data = ok(api.get("/v1/merchants/me"))
    assert data["id"] == merchant["merchant_id"] and data["name"] == merchant["name"]
    assert data["object"] == "merchant" and type(data["created"]) is int


def test_current_merchant_shows_both_public_keys(api, merchant):
    data = ok(api.get("/v1/merchants/me"))
    assert data["test"]["public_key"] == merchant["test"]["public_key"]
    assert data["live"]["public_key"] == merchant["live"]["public_key"]


def test_current_merchant_shows_treasury_addresses(api):
    data = ok(api.get("/v1/merchants/me"))
    assert type(data["test"]["treasury_address"]) is str and type(data["live"]["treasury_address"]) is str


def test_current_merchant_body_holds_no_secret_key(api, merchant):
    text = api.get("/v1/merchants/me").text
    assert merchant["test"]["secret_key"] not in text and merchant["live"]["secret_key"] not in text
    # Not even the random part beyond the recognisable hint.
    for mode in ("test", "live"):
        assert merchant[mode]["secret_key"][:16] not in text


def test_current_merchant_livemode_follows_the_key(api, live_api):
    assert ok(api.get("/v1/merchants/me"))["livemode"] is False
    assert ok(live_api.get("/v1/merchants/me"))["livemode"] is True


def test_current_merchant_needs_a_key(anonymous):
    fails(anonymous.get("/v1/merchants/me"), 401, "unauthorized")


@pytest.mark.parametrize("mode", ["test", "live"])
def test_current_merchant_refuses_a_public_key(service, merchant, mode):
    headers = {"Authorization": basic(merchant[mode]["public_key"])}
    with httpx.Client(base_url=service.http_url, headers=headers, verify=TLS) as client:
        fails(client.get("/v1/merchants/me"), 403, "forbidden")
