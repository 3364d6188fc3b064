"""BIP-39 mnemonic → BIP-44 EVM addresses (bip-utils). Seeds and account nodes are cached per process."""

from __future__ import annotations

from functools import lru_cache

from bip_utils import (
    Bip39MnemonicGenerator,
    Bip39MnemonicValidator,
    Bip39SeedGenerator,
    Bip39WordsNum,
    Bip44,
    Bip44Changes,
    Bip44Coins,
)

DEPOSIT = Bip44Changes.CHAIN_EXT  # change 0: one address per payment attempt
TREASURY = Bip44Changes.CHAIN_INT  # change 1, index 0: the refund-paying address
TREASURY_INDEX = 0


class WalletError(Exception):
    """The mnemonic is unusable; the message says why (never the words)."""


def new_mnemonic() -> str:
    return str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_24))


def check_mnemonic(mnemonic: str) -> None:
    if not Bip39MnemonicValidator().IsValid(mnemonic):
        raise WalletError("wallet_mnemonic is not a valid BIP-39 phrase")


# Memos of pure derivations (same mnemonic, same keys): speed only, nothing a request could change.
@lru_cache(maxsize=4)
def _root(mnemonic: str) -> Bip44:
    check_mnemonic(mnemonic)
    return Bip44.FromSeed(Bip39SeedGenerator(mnemonic).Generate(), Bip44Coins.ETHEREUM)


@lru_cache(maxsize=4096)
def _chain(mnemonic: str, account: int, change: Bip44Changes) -> Bip44:
    # The hardened account step needs the private key; the chain node below it derives addresses quickly.
    return _root(mnemonic).Purpose().Coin().Account(account).Change(change)


def address(mnemonic: str, account: int, change: Bip44Changes, index: int) -> str:
    """The checksummed 0x address at m/44'/60'/account'/change/index."""
    return str(_chain(mnemonic, account, change).AddressIndex(index).PublicKey().ToAddress())


def private_key(mnemonic: str, account: int, change: Bip44Changes, index: int) -> bytes:
    """The private key at m/44'/60'/account'/change/index, derived when needed and never stored."""
    return bytes(_chain(mnemonic, account, change).AddressIndex(index).PrivateKey().Raw().ToBytes())


def treasury(mnemonic: str, account: int) -> str:
    """The account's treasury address (change 1, index 0), lower-case as rows keep addresses."""
    return address(mnemonic, account, TREASURY, TREASURY_INDEX).lower()


def treasury_key(mnemonic: str, account: int) -> bytes:
    return private_key(mnemonic, account, TREASURY, TREASURY_INDEX)
