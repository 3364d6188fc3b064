"""server/catalogue/catalogue.py: the built-in catalogue, the networks file and the payable rules (DESIGN §5, §11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.catalogue.catalogue import CatalogueError, load

DEV_NETWORK = """
[[networks]]
id = "ETH-TEST"
rpc_url = "http://127.0.0.1:8545"
assets = [
  { coin = "ETH", display_name = "Test Ether", decimals = 18 },
  { coin = "USDT", decimals = 6, contract_address = "0x5FbDB2315678afecb367f032d93F642f64180aa3" },
  { coin = "USDC", display_name = "Test USD Coin", decimals = 6 },
]
"""


def networks_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "networks.toml"
    path.write_text(text)
    return path


# ---------------------------------------------------------------- built-in catalogue


def test_builtin_networks():
    assert set(load().networks) == {"ETH", "POLYGON", "BSC", "ETH-TEST"}


def test_builtin_production_assets_are_listed():
    ids = set(load().by_id)
    assert {"ETH-ETH", "USDT-ETH", "USDC-ETH", "POL-POLYGON", "USDT-POLYGON", "BNB-BSC", "USDT-BSC"} <= ids


def test_builtin_test_assets_are_listed():
    assert {"ETH-ETH-TEST", "USDT-ETH-TEST", "USDC-ETH-TEST"} <= set(load().by_id)


def test_builtin_crypto_is_not_payable_without_an_rpc_url():
    crypto = [a for a in load().assets if not a.is_fiat]
    assert crypto and not any(a.payable for a in crypto)


def test_builtin_fiat_currencies():
    usd = load().by_id["USD"]
    assert usd.is_fiat and usd.coin == "USD" and usd.symbol == "$" and usd.decimals == 2
    assert usd.provider == "provider_a" and usd.network == "" and usd.chain_id == 0


def test_fiat_is_not_payable_without_its_provider_configured():
    assert not load().by_id["USD"].payable


def test_fiat_is_payable_when_its_provider_is_configured():
    assert load(providers=frozenset({"provider_a"})).by_id["EUR"].payable


def test_crypto_asset_fields_come_from_its_network():
    usdt = load().by_id["USDT-ETH"]
    assert usdt.coin == "USDT" and usdt.token == "USDT" and usdt.network == "ETH" and usdt.chain_id == 1
    assert usdt.is_mainnet and not usdt.is_fiat and usdt.decimals == 6
    assert usdt.contract_address == "0xdAC17F958D2ee523a2206206994597C13D831ec7"
    assert usdt.address_url_template == "https://etherscan.io/address/%s"
    assert usdt.tx_url_template == "https://etherscan.io/tx/%s"


def test_asset_id_is_coin_dash_network():
    for asset in load().assets:
        if not asset.is_fiat:
            assert asset.id == f"{asset.coin}-{asset.network}"


def test_test_network_assets_are_not_mainnet_and_end_with_test():
    for asset in load().assets:
        if not asset.is_fiat:
            assert asset.is_mainnet == (not asset.id.endswith("-TEST")), asset.id


def test_test_mode_lists_test_crypto_and_fiat_only():
    ids = {a.id for a in load().for_mode(False)}
    assert {"ETH-ETH-TEST", "USD", "EUR"} <= ids
    assert not any(i in ids for i in ("ETH-ETH", "USDT-POLYGON", "BNB-BSC"))


def test_live_mode_lists_mainnet_crypto_and_fiat_only():
    ids = {a.id for a in load().for_mode(True)}
    assert {"ETH-ETH", "USDT-POLYGON", "BNB-BSC", "USD"} <= ids
    assert not any(i.endswith("-TEST") for i in ids)


def test_currency_finds_fiat_and_assets():
    catalogue = load()
    assert catalogue.currency("USD") is not None and catalogue.currency("USDT-ETH") is not None
    assert catalogue.currency("XYZ") is None


# ---------------------------------------------------------------- networks file


def test_networks_file_rpc_url_makes_native_coin_payable(tmp_path: Path):
    catalogue = load(networks_file(tmp_path, DEV_NETWORK))
    assert catalogue.by_id["ETH-ETH-TEST"].payable


def test_networks_file_token_with_contract_is_payable(tmp_path: Path):
    catalogue = load(networks_file(tmp_path, DEV_NETWORK))
    assert catalogue.by_id["USDT-ETH-TEST"].payable


def test_token_without_contract_is_not_payable_even_with_rpc_url(tmp_path: Path):
    catalogue = load(networks_file(tmp_path, DEV_NETWORK))
    assert not catalogue.by_id["USDC-ETH-TEST"].payable


def test_networks_file_entry_keeps_builtin_fields_it_does_not_override(tmp_path: Path):
    catalogue = load(networks_file(tmp_path, DEV_NETWORK))
    network = catalogue.networks["ETH-TEST"]
    assert network.chain_id == 31337 and network.confirmations == 3 and not network.is_mainnet
    assert network.rpc_url == "http://127.0.0.1:8545"
    assert catalogue.by_id["ETH-ETH-TEST"].chain_id == 31337


def test_networks_file_overrides_builtin_fields(tmp_path: Path):
    text = '[[networks]]\nid = "ETH"\nrpc_url = "https://eth.example"\nconfirmations = 20\n'
    catalogue = load(networks_file(tmp_path, text))
    assert catalogue.networks["ETH"].confirmations == 20
    assert catalogue.by_id["ETH-ETH"].payable and catalogue.by_id["USDT-ETH"].payable


def test_networks_file_override_leaves_other_networks_unpayable(tmp_path: Path):
    text = '[[networks]]\nid = "ETH"\nrpc_url = "https://eth.example"\n'
    catalogue = load(networks_file(tmp_path, text))
    assert not catalogue.by_id["USDT-POLYGON"].payable and not catalogue.by_id["BNB-BSC"].payable


def test_networks_file_adds_a_new_network(tmp_path: Path):
    text = """
[[networks]]
id = "ARBITRUM"
chain_id = 42161
native_coin = "ETH"
rpc_url = "https://arb.example"
tx_url_template = "https://arbiscan.io/tx/%s"
assets = [{ coin = "ETH", decimals = 18 }, { coin = "USDC", decimals = 6, contract_address = "0xaf88" }]
"""
    catalogue = load(networks_file(tmp_path, text))
    eth = catalogue.by_id["ETH-ARBITRUM"]
    assert eth.is_mainnet and eth.chain_id == 42161 and eth.payable and eth.display_name == "ETH"
    assert eth.tx_url_template == "https://arbiscan.io/tx/%s"
    assert catalogue.by_id["USDC-ARBITRUM"].payable
    assert "ETH-ETH" in catalogue.by_id  # the built-in networks are still there


def test_new_network_without_native_coin_has_no_payable_contractless_asset(tmp_path: Path):
    text = '[[networks]]\nid = "FOO"\nrpc_url = "https://foo.example"\nassets = [{ coin = "FOO", decimals = 18 }]\n'
    assert not load(networks_file(tmp_path, text)).by_id["FOO-FOO"].payable


def test_networks_file_adds_fiat(tmp_path: Path):
    text = '[[fiat]]\ncode = "GBP"\nsymbol = "£"\nprovider = "provider_b"\n'
    gbp = load(networks_file(tmp_path, text), frozenset({"provider_b"})).by_id["GBP"]
    assert gbp.is_fiat and gbp.symbol == "£" and gbp.decimals == 2 and gbp.payable


# ---------------------------------------------------------------- refusals


def test_test_network_marked_mainnet_is_refused(tmp_path: Path):
    text = '[[networks]]\nid = "FOO-TEST"\nis_mainnet = true\n'
    with pytest.raises(CatalogueError, match="FOO-TEST"):
        load(networks_file(tmp_path, text))


def test_non_mainnet_network_whose_id_lacks_test_suffix_is_refused(tmp_path: Path):
    text = '[[networks]]\nid = "SEPOLIA"\nis_mainnet = false\n'
    with pytest.raises(CatalogueError, match="-TEST"):
        load(networks_file(tmp_path, text))


def test_network_id_ending_test_defaults_to_testnet(tmp_path: Path):
    text = '[[networks]]\nid = "BSC-TEST"\nrpc_url = "http://x"\nnative_coin = "BNB"\n' \
           'assets = [{ coin = "BNB", decimals = 18 }]\n'
    asset = load(networks_file(tmp_path, text)).by_id["BNB-BSC-TEST"]
    assert not asset.is_mainnet and asset.payable


def test_network_without_id_is_refused(tmp_path: Path):
    with pytest.raises(CatalogueError, match="no id"):
        load(networks_file(tmp_path, '[[networks]]\nchain_id = 5\n'))


def test_asset_without_integer_decimals_is_refused(tmp_path: Path):
    text = '[[networks]]\nid = "FOO"\nassets = [{ coin = "FOO", decimals = "18" }]\n'
    with pytest.raises(CatalogueError, match="decimals"):
        load(networks_file(tmp_path, text))


def test_asset_without_coin_is_refused(tmp_path: Path):
    text = '[[networks]]\nid = "FOO"\nassets = [{ decimals = 18 }]\n'
    with pytest.raises(CatalogueError, match="coin"):
        load(networks_file(tmp_path, text))


def test_non_integer_chain_id_is_refused(tmp_path: Path):
    with pytest.raises(CatalogueError, match="chain_id"):
        load(networks_file(tmp_path, '[[networks]]\nid = "FOO"\nchain_id = "one"\n'))


def test_invalid_toml_is_refused_naming_the_file(tmp_path: Path):
    path = networks_file(tmp_path, "[[networks]\n")
    with pytest.raises(CatalogueError, match=r"networks\.toml"):
        load(path)


def test_missing_networks_file_is_refused(tmp_path: Path):
    with pytest.raises(CatalogueError):
        load(tmp_path / "absent.toml")
