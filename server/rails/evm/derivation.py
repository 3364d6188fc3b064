"""The EVM family's keys: BIP-44 coin 60 (m/44'/60'/account'/change/index), the path every Ethereum wallet uses, so
an operator can recover any address with standard tools. Deposit addresses are change 0 by index; the treasury is
change 1, index 0. Imports no web3: commands that only derive addresses stay quick."""

from __future__ import annotations

import re
from functools import lru_cache

from bip_utils import Bip44, Bip44Changes, Bip44Coins
from eth_utils import to_checksum_address

from server.rails import hd
from server.rails.base import InvalidSignature

DEPOSIT = Bip44Changes.CHAIN_EXT
TREASURY = Bip44Changes.CHAIN_INT
TREASURY_INDEX = 0


# Memos of pure derivations (same mnemonic, same keys): speed only, nothing a request could change.
@lru_cache(maxsize=4)
def _root(mnemonic: str) -> Bip44:
    return Bip44.FromSeed(hd.seed(mnemonic), Bip44Coins.ETHEREUM)


@lru_cache(maxsize=4096)
def _chain(mnemonic: str, account: int, change: Bip44Changes) -> Bip44:
    # The hardened account step needs the private key; the chain node below it derives addresses quickly.
    return _root(mnemonic).Purpose().Coin().Account(account).Change(change)


def _address(mnemonic: str, account: int, change: Bip44Changes, index: int) -> str:
    return str(_chain(mnemonic, account, change).AddressIndex(index).PublicKey().ToAddress()).lower()


def _key(mnemonic: str, account: int, change: Bip44Changes, index: int) -> bytes:
    return bytes(_chain(mnemonic, account, change).AddressIndex(index).PrivateKey().Raw().ToBytes())


class EvmKeys:
    """`KeyScheme` of the EVM family. Addresses are stored lower-case and shown with their EIP-55 checksum."""

    def deposit_address(self, mnemonic: str, account: int, index: int) -> str:
        return _address(mnemonic, account, DEPOSIT, index)

    def deposit_key(self, mnemonic: str, account: int, index: int) -> bytes:
        return _key(mnemonic, account, DEPOSIT, index)

    def treasury_address(self, mnemonic: str, account: int) -> str:
        return _address(mnemonic, account, TREASURY, TREASURY_INDEX)

    def treasury_key(self, mnemonic: str, account: int) -> bytes:
        return _key(mnemonic, account, TREASURY, TREASURY_INDEX)

    def display_address(self, stored: str) -> str:
        return str(to_checksum_address(stored))

    def message_signer(self, message: str, signature: str) -> str:
        """`MessageSigning`: EIP-191 version 0x45 (`personal_sign`), a 65-byte r‖s‖v signature in 0x-prefixed hex,
        v 27/28 or 0/1 (wallets write either)."""
        from eth_account import Account
        from eth_account.messages import encode_defunct
        from eth_keys.exceptions import BadSignature
        from eth_utils.exceptions import ValidationError

        if not re.fullmatch(r"0x[0-9a-fA-F]{130}", signature):
            raise InvalidSignature("expected 65 bytes as 0x-prefixed hex (r, s, v: 132 characters)")
        try:
            signer = Account.recover_message(encode_defunct(text=message), signature=bytes.fromhex(signature[2:]))
        except (BadSignature, ValidationError, ValueError) as e:  # v, r or s out of range, or no point recovered
            raise InvalidSignature("not a valid signature: r, s or v out of range") from e
        return str(signer).lower()
