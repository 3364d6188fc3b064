"""The micro-deposit a payout address receives (DESIGN §16): drawn where the rail can send it, in the coin's own
decimals. An EVM coin draws what it always drew; a UTXO coin draws from its dust threshold up (issue 34)."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

from server.catalogue.catalogue import Asset, Network
from server.db import Database
from server.rails.base import PayoutOutputs
from server.rails.utxo.rail import PayingUtxoRail
from server.treasury.addresses.service import micro_amount

LTC = Asset(id="LTC-LTC-TEST", display_name="LTC", coin="LTC", is_fiat=False, decimals=8, payable=True,
            network="LTC-TEST")
NETWORK = Network(id="LTC-TEST", display_name="Litecoin", chain_id=0, is_mainnet=False,
                  rpc_url="http://u:p@127.0.0.1:1", confirmations=2, address_url_template="", tx_url_template="",
                  assets=(LTC,), family="utxo", params={"hrp": "rltc", "coin_type": 1})
P2WPKH = "rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg"
P2PKH = "mzYpQmSAGYWWyTLiLGbGaG8T3rHdjNcV11"  # the same key's legacy address on regtest
DRAWS = 2000


def test_an_evm_coin_draws_1000_to_9999_units_of_ten_to_the_minus_10() -> None:
    drawn = {micro_amount(18) for _ in range(DRAWS)}
    assert all(Decimal("0.0000001000") <= d <= Decimal("0.0000009999") for d in drawn)
    assert all(d == d.quantize(Decimal("1e-10")) and d.as_tuple().exponent == -10 for d in drawn)


def test_a_coin_with_a_floor_draws_from_the_floor_up_in_its_own_decimals() -> None:
    drawn = {micro_amount(8, 2940) for _ in range(DRAWS)}
    assert all(Decimal("0.00002940") <= d <= Decimal("0.00011939") for d in drawn)
    assert all(d.as_tuple().exponent == -8 for d in drawn)
    assert len(drawn) > DRAWS // 2  # random, not one fixed amount


def test_a_coin_of_few_decimals_without_a_floor_draws_whole_smallest_units() -> None:
    drawn = {micro_amount(6) for _ in range(DRAWS)}
    assert all(Decimal("0.000001") <= d <= Decimal("0.009000") and d.as_tuple().exponent == -6 for d in drawn)


def _rail(tmp_path: Path) -> tuple[PayingUtxoRail, Database]:
    db = Database(f"sqlite:///{tmp_path / 'r.db'}")
    return PayingUtxoRail(NETWORK, db), db


def test_the_utxo_rail_sends_nothing_below_litecoins_dust_threshold_of_the_destination(tmp_path: Path) -> None:
    rail, db = _rail(tmp_path)
    try:
        assert isinstance(rail, PayoutOutputs) and rail.native_fee_from_amount
        assert rail.smallest_output(LTC, P2WPKH) == 2940  # (31 + 67) vB at 30 000 litoshi per 1000 vB
        assert rail.smallest_output(LTC, P2PKH) == 5460  # (34 + 148) vB
    finally:
        asyncio.run(db.close())
