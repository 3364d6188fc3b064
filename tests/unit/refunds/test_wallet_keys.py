"""Test mode's seed is never the live one: the configured test mnemonic, else a generated one in var/."""

from __future__ import annotations

from pathlib import Path

import pytest
from eth_account import Account

from server.config import ConfigError, load_settings
from server.rails.evm.derivation import EvmKeys
from server.rails.hd import WalletError
from server.wallet.mnemonics import DEV_FILE, Keys

LIVE = "legal winner thank year wave sausage worth useful legal winner thank yellow"
TEST = "letter advice cage absurd amount doctor acoustic avoid letter advice cage above"


def test_test_mode_uses_the_configured_test_mnemonic_and_live_mode_the_live_one(tmp_path: Path) -> None:
    keys = Keys(LIVE, tmp_path, test_configured=TEST)
    assert (keys.mnemonic(True), keys.mnemonic(False)) == (LIVE, TEST)


def test_test_mode_without_a_test_mnemonic_generates_its_own_even_with_a_live_one(tmp_path: Path) -> None:
    test = Keys(LIVE, tmp_path).mnemonic(False)
    assert test != LIVE and (tmp_path / DEV_FILE).read_text().strip() == test


def test_a_test_mnemonic_equal_to_the_live_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WalletError):
        Keys(LIVE, tmp_path, test_configured=" ".join(LIVE.split()))


def test_a_generated_file_holding_the_live_mnemonic_is_refused(tmp_path: Path) -> None:
    (tmp_path / DEV_FILE).write_text(LIVE + "\n")
    with pytest.raises(WalletError):
        Keys(LIVE, tmp_path).mnemonic(False)


def test_settings_refuse_a_test_mnemonic_equal_to_the_live_one() -> None:
    with pytest.raises(ConfigError, match="wallet_test_mnemonic"):
        load_settings({"PAYGATE_WALLET_MNEMONIC": LIVE, "PAYGATE_WALLET_TEST_MNEMONIC": LIVE})


def test_settings_read_the_refund_stuck_seconds() -> None:
    assert load_settings({"PAYGATE_REFUND_STUCK_SECONDS": "45"}).refund_stuck_seconds == 45
    with pytest.raises(ConfigError, match="refund_stuck_seconds"):
        load_settings({"PAYGATE_REFUND_STUCK_SECONDS": "0"})


def test_the_treasury_is_change_1_index_0_of_the_account_and_its_key_signs_for_it() -> None:
    """m/44'/60'/account'/1/0 of Anvil's well-known phrase, checked against eth_account's own derivation."""
    Account.enable_unaudited_hdwallet_features()
    phrase = "test test test test test test test test test test test junk"
    expected = Account.from_mnemonic(phrase, account_path="m/44'/60'/3'/1/0")
    keys = EvmKeys()
    assert keys.treasury_address(phrase, 3) == expected.address.lower()
    assert keys.treasury_key(phrase, 3) == bytes(expected.key)
    assert keys.treasury_address(phrase, 3) != keys.deposit_address(phrase, 3, 0)


def test_deposit_address_n_is_change_0_index_n_of_the_account_and_its_key_signs_for_it() -> None:
    Account.enable_unaudited_hdwallet_features()
    phrase = "test test test test test test test test test test test junk"
    expected = Account.from_mnemonic(phrase, account_path="m/44'/60'/2'/0/7")
    keys = EvmKeys()
    assert keys.deposit_address(phrase, 2, 7) == expected.address.lower()
    assert keys.deposit_key(phrase, 2, 7) == bytes(expected.key)
    assert keys.display_address(keys.deposit_address(phrase, 2, 7)) == expected.address
