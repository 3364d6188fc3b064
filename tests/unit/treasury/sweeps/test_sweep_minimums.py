"""`sweep_minimums` (PAYGATE_SWEEP_MINIMUMS): the least a deposit address must hold of an asset to be swept,
keyed by asset id or coin, as decimals in the asset's units; a bad value stops start-up naming the setting."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from server.catalogue.catalogue import Asset
from server.config import ConfigError, Settings, load_settings
from server.treasury.sweeps.service import minimum


@pytest.fixture(autouse=True)
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def asset(coin: str, network: str = "ETH-TEST") -> Asset:
    return Asset(id=f"{coin}-{network}", display_name=coin, coin=coin, is_fiat=False, decimals=18, payable=True,
                 network=network)


def refused(value: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings({"PAYGATE_SWEEP_MINIMUMS": value})
    return str(caught.value)


def test_default_minimums_are_todays_per_coin_values() -> None:
    s = Settings()
    assert (minimum(s, asset("ETH")), minimum(s, asset("USDT")), minimum(s, asset("BNB"))) == \
        (Decimal("0.001"), Decimal("1"), Decimal("0.005"))


def test_a_coin_without_a_minimum_uses_one_unit() -> None:
    assert minimum(Settings(), asset("DOGE")) == Decimal("1")


def test_env_json_mapping_is_parsed_to_decimals() -> None:
    s = load_settings({"PAYGATE_SWEEP_MINIMUMS": '{"ETH-ETH-TEST": "0.5", "USDT": 2}'})
    assert minimum(s, asset("ETH")) == Decimal("0.5")
    assert minimum(s, asset("USDT")) == Decimal("2")


def test_an_asset_id_wins_over_its_coin() -> None:
    s = load_settings({"PAYGATE_SWEEP_MINIMUMS": '{"ETH": "0.2", "ETH-BSC-TEST": "0.3"}'})
    assert (minimum(s, asset("ETH")), minimum(s, asset("ETH", "BSC-TEST"))) == (Decimal("0.2"), Decimal("0.3"))


def test_unnamed_assets_keep_their_defaults() -> None:
    s = load_settings({"PAYGATE_SWEEP_MINIMUMS": '{"USDT": "3"}'})
    assert minimum(s, asset("ETH")) == Decimal("0.001")


def test_toml_table_is_read(empty_cwd: Path) -> None:
    (empty_cwd / "paygate.toml").write_text('[sweep_minimums]\n"USDC-ETH-TEST" = "7.25"\n')
    assert minimum(load_settings({}), asset("USDC")) == Decimal("7.25")


def test_json_numbers_are_parsed_exactly_not_as_floats() -> None:
    s = load_settings({"PAYGATE_SWEEP_MINIMUMS": '{"ETH": 0.1}'})
    assert minimum(s, asset("ETH")) == Decimal("0.1")


@pytest.mark.parametrize("value", ['{"ETH": "abc"}', '{"ETH": "-1"}', '{"ETH": "NaN"}', '{"ETH": "Infinity"}',
                                   '{"ETH": "1e400"}', '{"ETH": true}', '["ETH"]', "ETH=1", '{"": "1"}'])
def test_a_bad_value_is_refused_naming_the_setting(value: str) -> None:
    text = refused(value)
    assert "sweep_minimums" in text and "PAYGATE_SWEEP_MINIMUMS" in text and "\n" not in text


@pytest.mark.parametrize("digits", ["\u0661", "\uff15", "0.\u0665"])  # Arabic-Indic, full-width, mixed
def test_non_ascii_digits_are_refused(digits: str) -> None:
    assert "sweep_minimums" in refused(json.dumps({"ETH": digits}, ensure_ascii=False))
