"""Quote math: amount = fiat ÷ rate rounded up to the asset's decimals; the rate is the asset's price in the fiat."""

import asyncio
from decimal import Decimal

import pytest

from server.catalogue.catalogue import Asset
from server.config import DEFAULT_RATES, ConfigError, load_settings
from server.rates import RateUnavailable, TableRates
from server.rates.quotes import QUOTE_SECONDS, amount_for, exchange_rate, quote

USD = Asset(id="USD", display_name="US Dollar", coin="USD", is_fiat=True, decimals=2, payable=False)
EUR = Asset(id="EUR", display_name="Euro", coin="EUR", is_fiat=True, decimals=2, payable=False)
ETH = Asset(id="ETH-ETH-TEST", display_name="Ether", coin="ETH", is_fiat=False, decimals=18, payable=True)
USDT = Asset(id="USDT-ETH-TEST", display_name="Tether", coin="USDT", is_fiat=False, decimals=6, payable=True)
RATES = TableRates(DEFAULT_RATES)


def run_quote(asset: Asset, currency: Asset, due: str) -> tuple[Decimal, Decimal, int]:
    q = asyncio.run(quote(RATES, asset, currency, Decimal(due), now=1000))
    return q.amount, q.exchange_rate, q.expires_at


@pytest.mark.parametrize(("asset", "due", "amount", "rate"), [
    (USDT, "10.50", "10.5", "1"),
    (ETH, "10.50", "0.0035", "3000"),
    # 10 / 3000 = 0.00333…: rounded UP at the 18th place, so paying the quote always covers the amount
    (ETH, "10", "0.003333333333333334", "3000"),
    (USDT, "0.0000001", "0.000001", "1"),
])
def test_quote_amount_is_rounded_up_to_the_asset_decimals(asset: Asset, due: str, amount: str, rate: str) -> None:
    got_amount, got_rate, expires = run_quote(asset, USD, due)
    assert got_amount == Decimal(amount)
    assert got_rate == Decimal(rate)
    assert expires == 1000 + QUOTE_SECONDS == 1000 + 30 * 60
    assert got_amount * got_rate >= Decimal(due)


def test_rate_is_the_price_of_one_unit_of_the_asset_in_the_intent_currency() -> None:
    rate = asyncio.run(exchange_rate(RATES, ETH, EUR))
    assert abs(rate * Decimal("1.08") - 3000) < Decimal("1e-20")
    assert amount_for(Decimal("100"), rate, 18) * rate >= Decimal(100)


def test_an_intent_priced_in_the_asset_itself_pays_one_for_one() -> None:
    assert run_quote(USDT, USDT, "7.25")[:2] == (Decimal("7.25"), Decimal(1))


def test_unknown_prices_are_refused() -> None:
    odd = Asset(id="DOGE-X-TEST", display_name="x", coin="DOGE", is_fiat=False, decimals=8, payable=True)
    with pytest.raises(RateUnavailable):
        asyncio.run(exchange_rate(RATES, odd, USD))


def test_the_rates_setting_overrides_the_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "paygate.toml"
    config.write_text('[rates]\nETH = "2500.5"\nDOGE = "0.1"\n')
    table = dict(load_settings({"PAYGATE_CONFIG": str(config)}).rates)
    assert table["ETH"] == Decimal("2500.5") and table["DOGE"] == Decimal("0.1") and table["USDT"] == 1
    config.write_text('[rates]\nETH = "-1"\n')
    with pytest.raises(ConfigError, match=r"rates\.ETH"):
        load_settings({"PAYGATE_CONFIG": str(config)})
