"""UtxoRail's capabilities as the registry sees them (no node needed to build one)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server.catalogue.catalogue import Asset, Network
from server.rails.base import AddressBook, AddressPayouts, Balances, InvalidAddress, Rail, Receiver, TransferLookup
from server.rails.utxo.rail import UtxoRail
from server.rails.utxo.scanner import UtxoScanner

LTC = Asset(id="LTC-LTC-TEST", display_name="LTC", coin="LTC", is_fiat=False, decimals=8, payable=True,
            network="LTC-TEST")
NETWORK = Network(id="LTC-TEST", display_name="Litecoin", chain_id=0, is_mainnet=False,
                  rpc_url="http://u:p@127.0.0.1:1", confirmations=2, address_url_template="", tx_url_template="",
                  assets=(LTC,), family="utxo", params={"hrp": "rltc", "coin_type": 1})
ADDRESS = "rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg"


def test_the_rail_receives_validates_and_holds_balances_but_pays_out_nothing_yet() -> None:
    rail = UtxoRail(NETWORK)
    assert (rail.name, rail.family) == ("LTC-TEST", "utxo")
    for capability in (Rail, Receiver, AddressBook, Balances):
        assert isinstance(rail, capability)
    assert not isinstance(rail, AddressPayouts)
    assert isinstance(UtxoScanner.for_network(NETWORK), TransferLookup)


def test_the_rail_validates_with_its_networks_hrp() -> None:
    rail = UtxoRail(NETWORK)
    assert rail.normalize_address(ADDRESS.upper()) == ADDRESS
    with pytest.raises(InvalidAddress):
        rail.normalize_address("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
    assert rail.normalize_tx_hash("AB" * 32) == "ab" * 32


def test_the_rail_makes_the_checkouts_bip21_uri() -> None:
    assert UtxoRail(NETWORK).payment_uri(ADDRESS, Decimal("0.015")) == f"litecoin:{ADDRESS}?amount=0.015"
