"""The EIP-681 URI the EVM rail gives a wallet to pay a quote (the hosted page's QR code): pure functions, no node."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from server.catalogue.catalogue import Asset, Catalogue, Network
from server.db import Database
from server.rails.base import PaymentRequests
from server.rails.evm.eip681 import base_units, payment_uri
from server.rails.evm.rail import EvmRail

DEPOSIT = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045"
USDT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"  # checksummed, as the networks file gives it

ETH = Asset(id="ETH-ETH-TEST", display_name="ETH", coin="ETH", is_fiat=False, decimals=18, payable=True,
            network="ETH-TEST", chain_id=31337)
TOKEN = Asset(id="USDT-ETH-TEST", display_name="USDT", coin="USDT", is_fiat=False, decimals=6, payable=True,
              network="ETH-TEST", contract_address=USDT, chain_id=31337)
NETWORK = Network(id="ETH-TEST", display_name="Ethereum", chain_id=31337, is_mainnet=False,
                  rpc_url="http://127.0.0.1:1", confirmations=3, address_url_template="", tx_url_template="",
                  assets=(ETH, TOKEN))


def test_a_native_payment_is_the_value_in_wei_to_the_address_on_its_chain() -> None:
    assert payment_uri(DEPOSIT, 31337, 10**18) == f"ethereum:{DEPOSIT}@31337?value=1000000000000000000"


def test_a_token_payment_is_a_transfer_call_on_the_contract_of_the_amount_in_base_units() -> None:
    assert payment_uri(DEPOSIT, 31337, 12_500_000, contract=USDT) == (
        f"ethereum:{USDT}@31337/transfer?address={DEPOSIT}&uint256=12500000")


def test_a_network_without_a_chain_id_leaves_the_chain_out() -> None:
    # What the hosted page built before the rail did: the test catalogue's ETH-TEST has no chain_id.
    assert payment_uri(DEPOSIT, 0, 7) == f"ethereum:{DEPOSIT}?value=7"


def test_without_an_amount_the_uri_names_only_the_recipient() -> None:
    assert payment_uri(DEPOSIT, 1) == f"ethereum:{DEPOSIT}@1"
    assert payment_uri(DEPOSIT, 1, contract=USDT) == f"ethereum:{USDT}@1/transfer?address={DEPOSIT}"


@pytest.mark.parametrize(("address", "contract"), [
    ("0xd8da6bf26964af9d7eed9e03e53415d37aa9604\u0665", ""),  # an Arabic-Indic five in the last place
    (DEPOSIT + "&uint256=1", ""),  # a second parameter smuggled in through the address
    (DEPOSIT, "0x5FbDB2315678afecb367f032d93F642f64180aA3"),  # one letter's case off: a broken checksum
    ("d8da6bf26964af9d7eed9e03e53415d37aa96045", ""),
])
def test_an_address_that_is_not_one_is_refused(address: str, contract: str) -> None:
    with pytest.raises(ValueError):
        payment_uri(address, 1, 1, contract=contract)


@pytest.mark.parametrize("amount_base", [0, -1])
def test_an_amount_that_pays_nothing_is_refused(amount_base: int) -> None:
    with pytest.raises(ValueError):
        payment_uri(DEPOSIT, 1, amount_base)


@pytest.mark.parametrize(("amount", "decimals", "units"), [
    (Decimal("12.5"), 6, 12_500_000),
    (Decimal("12.500000000"), 6, 12_500_000),  # trailing zeros beyond the decimals are still exact
    (Decimal("1E+1"), 6, 10_000_000),  # an exponent
    (Decimal("0.000000000000000001"), 18, 1),  # one wei
    (Decimal("\u0661\u0662.\u0665"), 6, 12_500_000),  # Arabic-Indic 12.5: Decimal reads them, the URI is ASCII
    # More digits than Decimal's 28 of precision: counted exactly, never rounded.
    (Decimal("123456789012345678901234567890.123456789012345678"), 18,
     123456789012345678901234567890123456789012345678),
    (Decimal("2.50000000000000000000000000000000000000"), 6, 2_500_000),
])
def test_an_amount_becomes_the_exact_number_of_base_units(amount: Decimal, decimals: int, units: int) -> None:
    assert base_units(amount, decimals) == units


@pytest.mark.parametrize("amount", [
    Decimal("0.0000001"), Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-1"), Decimal(0),
    Decimal("-0"),
    Decimal("1E-999999999"), Decimal("1E+999999999"),  # refused without computing 10 to a billion
    Decimal(2**256),  # beyond a transfer's uint256
])
def test_an_amount_the_uri_cannot_carry_exactly_is_refused(amount: Decimal) -> None:
    with pytest.raises(ValueError):
        base_units(amount, 6)


@pytest.fixture
def rail(tmp_path: Path) -> Iterator[EvmRail]:
    # A rail built as the registry builds it; none of these calls reaches the node or the database.
    db = Database(f"sqlite:///{tmp_path / 'r.db'}")
    yield EvmRail(NETWORK, Catalogue(networks={NETWORK.id: NETWORK}, assets=NETWORK.assets), db, stuck_seconds=60)
    asyncio.run(db.close())


def test_the_evm_rail_makes_payment_requests(rail: EvmRail) -> None:
    assert isinstance(rail, PaymentRequests)


def test_the_rail_asks_for_the_token_amount_of_a_quote(rail: EvmRail) -> None:
    assert rail.payment_uri(DEPOSIT, Decimal("12.5"), TOKEN) == (
        f"ethereum:{USDT}@31337/transfer?address={DEPOSIT}&uint256=12500000")


def test_the_rail_asks_for_the_native_coin_without_an_asset(rail: EvmRail) -> None:
    assert rail.payment_uri(DEPOSIT, Decimal("0.5")) == f"ethereum:{DEPOSIT}@31337?value=500000000000000000"


def test_the_rail_refuses_an_asset_of_another_network(rail: EvmRail) -> None:
    other = Asset(id="USDT-POLYGON", display_name="USDT", coin="USDT", is_fiat=False, decimals=6, payable=True,
                  network="POLYGON", contract_address=USDT, chain_id=137)
    with pytest.raises(ValueError):
        rail.payment_uri(DEPOSIT, Decimal(1), other)
