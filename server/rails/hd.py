"""The wallet's BIP-39 mnemonic: made, checked, and turned into the seed every chain family derives its keys from
(server/rails/base.py `KeyScheme`). The seed is cached per process: PBKDF2 over the phrase is the slow step."""

from __future__ import annotations

from functools import lru_cache

from bip_utils import Bip39MnemonicGenerator, Bip39MnemonicValidator, Bip39SeedGenerator, Bip39WordsNum

from server.config import ConfigError


class WalletError(ConfigError):
    """The mnemonic is unusable; the message says why (never the words). A configuration error: the command stops
    with one line (server/boot/cli.py)."""


def new_mnemonic() -> str:
    return str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_24))


def check_mnemonic(mnemonic: str) -> None:
    if not Bip39MnemonicValidator().IsValid(mnemonic):
        raise WalletError("wallet_mnemonic is not a valid BIP-39 phrase")


# A memo of a pure derivation (same mnemonic, same seed): speed only, nothing a request could change.
@lru_cache(maxsize=4)
def seed(mnemonic: str) -> bytes:
    check_mnemonic(mnemonic)
    return bytes(Bip39SeedGenerator(mnemonic).Generate())
