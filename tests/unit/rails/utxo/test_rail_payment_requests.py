"""The UTXO rail as a maker of payment requests (the hosted page's BIP-21 QR code): no node needed."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server.catalogue.catalogue import Asset
from server.rails.base import PaymentRequests
from server.rails.utxo.rail import UtxoRail
from tests.unit.rails.utxo.test_rail import ADDRESS, LTC, NETWORK


def test_the_utxo_rail_makes_payment_requests() -> None:
    assert isinstance(UtxoRail(NETWORK), PaymentRequests)


def test_a_quote_in_the_native_coin_is_a_bip21_uri_of_its_amount_in_coins() -> None:
    assert UtxoRail(NETWORK).payment_uri(ADDRESS, Decimal("0.13125000"), LTC) == f"litecoin:{ADDRESS}?amount=0.13125"


def test_an_asset_of_another_network_is_refused() -> None:
    other = Asset(id="BTC-BTC-TEST", display_name="BTC", coin="BTC", is_fiat=False, decimals=8, payable=True,
                  network="BTC-TEST")
    with pytest.raises(ValueError):
        UtxoRail(NETWORK).payment_uri(ADDRESS, Decimal(1), other)
