"""A UTXO network's parameters from its networks-file entry: defaults, and a refusal naming the key."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from server.catalogue.catalogue import Asset, CatalogueError, Network
from server.rails.utxo.family import FAMILY, keys_for
from server.rails.utxo.params import UtxoParams

LTC = Asset(id="LTC-LTC-TEST", display_name="LTC", coin="LTC", is_fiat=False, decimals=8, payable=True,
            network="LTC-TEST")


def network(params: dict[str, Any], net_id: str = "LTC-TEST") -> Network:
    return Network(id=net_id, display_name=net_id, chain_id=0, is_mainnet=not net_id.endswith("-TEST"),
                   rpc_url="http://u:p@127.0.0.1:1", confirmations=2, address_url_template="", tx_url_template="",
                   assets=(LTC,), family="utxo", params=params)


def test_a_regtest_network_needs_only_its_hrp() -> None:
    p = UtxoParams.of(network({"hrp": "rltc"}))
    assert (p.hrp, p.coin_type, p.chain, p.uri_scheme, p.fee_rate_floor, p.fee_target, p.dust_relay_fee) == (
        "rltc", 1, "regtest", "litecoin", Decimal(1), 3, 30000)


def test_bitcoin_defaults_to_bitcoins_dust_relay_fee() -> None:
    assert UtxoParams.of(network({"hrp": "bcrt"})).dust_relay_fee == 3000


@pytest.mark.parametrize(("params", "key"), [
    ({}, "hrp"), ({"hrp": "RLTC"}, "hrp"), ({"hrp": "nope"}, "hrp"),
    ({"hrp": "rltc", "coin_type": -1}, "coin_type"), ({"hrp": "rltc", "coin_type": True}, "coin_type"),
    ({"hrp": "rltc", "chain": "main"}, "chain"), ({"hrp": "rltc", "fee_rate_floor": "x"}, "fee_rate_floor"),
    ({"hrp": "rltc", "fee_rate_floor": 0}, "fee_rate_floor"), ({"hrp": "rltc", "fee_target": 0}, "fee_target"),
    ({"hrp": "rltc", "dust_relay_fee": 1.5}, "dust_relay_fee"),
])
def test_an_unusable_parameter_is_refused_naming_it(params: dict[str, Any], key: str) -> None:
    with pytest.raises(CatalogueError, match=f"LTC-TEST: {key}"):
        UtxoParams.of(network(params))


def test_a_mainnet_network_names_its_coin_type() -> None:
    with pytest.raises(CatalogueError, match="coin_type"):
        UtxoParams.of(network({"hrp": "ltc"}, "LTC"))
    assert UtxoParams.of(network({"hrp": "ltc", "coin_type": 2}, "LTC")).chain == "main"


def test_the_family_keys_are_litecoin_regtests_and_any_network_has_its_own() -> None:
    assert FAMILY.keys.deposit_address("abandon " * 11 + "about", 0, 0).startswith("rltc1q")
    keys = keys_for(network({"hrp": "ltc", "coin_type": 2}, "LTC"))
    assert (keys.hrp, keys.coin_type) == ("ltc", 2)
