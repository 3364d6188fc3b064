"""The Bitcoin family's keys: BIP-84 native segwit (P2WPKH, bech32), m/84'/coin_type'/account'/change/index, the path
Bitcoin and Litecoin wallets use for bech32 accounts, so an operator can recover every address with standard tools.

    deposit addresses   m/84'/c'/account'/0/index      (the receive chain, a fresh index per payment attempt)
    treasury            m/84'/c'/account'/1/0          (the first change address)
    change              m/84'/c'/account'/1/n, n ≥ 1   (a spend's change goes to a fresh one)

The coin type and the bech32 prefix (hrp) are the network's (`coin_type` 1 on every test network, BIP-44's rule;
`hrp` "rltc" on Litecoin regtest): `KeyScheme`'s methods take no network, so there is one `UtxoKeys` per (hrp,
coin_type). Derivation is bip-utils' generic BIP-32 (any coin type); the address encoding is embit's, since
bip-utils knows only the hrps of the coins it lists.
"""

from __future__ import annotations

from functools import lru_cache

from bip_utils import Bip32Slip10Secp256k1
from embit import bech32
from embit.hashes import hash160

from server.rails import hd

PURPOSE = 84
RECEIVE = 0
CHANGE = 1
TREASURY_INDEX = 0
_HARDENED = 0x80000000


# Memos of pure derivations (same mnemonic, same keys): speed only, nothing a request could change.
@lru_cache(maxsize=4)
def _root(mnemonic: str) -> Bip32Slip10Secp256k1:
    return Bip32Slip10Secp256k1.FromSeed(hd.seed(mnemonic))


@lru_cache(maxsize=4096)
def _chain(mnemonic: str, coin_type: int, account: int, change: int) -> Bip32Slip10Secp256k1:
    # The hardened steps need the private key; below the chain node, addresses derive quickly.
    node = _root(mnemonic)
    for step in (PURPOSE | _HARDENED, coin_type | _HARDENED, account | _HARDENED, change):
        node = node.ChildKey(step)
    return node


def _node(mnemonic: str, coin_type: int, account: int, change: int, index: int) -> Bip32Slip10Secp256k1:
    if account < 0 or index < 0:
        raise ValueError("account and index are non-negative")
    return _chain(mnemonic, coin_type, account, change).ChildKey(index)


def p2wpkh_address(hrp: str, public_key: bytes) -> str:
    """The bech32 P2WPKH address of a 33-byte compressed public key, lower-case (its stored form)."""
    address = bech32.encode(hrp, 0, hash160(public_key))
    if address is None:
        raise ValueError(f"cannot encode a P2WPKH address with hrp {hrp!r}")
    return str(address)


class UtxoKeys:
    """`KeyScheme` of one Bitcoin-family network (its hrp and BIP-44 coin type). Keys are 32-byte private keys."""

    def __init__(self, hrp: str, coin_type: int) -> None:
        self.hrp = hrp
        self.coin_type = coin_type

    def _address(self, mnemonic: str, account: int, change: int, index: int) -> str:
        public = _node(mnemonic, self.coin_type, account, change, index).PublicKey().RawCompressed().ToBytes()
        return p2wpkh_address(self.hrp, bytes(public))

    def _key(self, mnemonic: str, account: int, change: int, index: int) -> bytes:
        return bytes(_node(mnemonic, self.coin_type, account, change, index).PrivateKey().Raw().ToBytes())

    def deposit_address(self, mnemonic: str, account: int, index: int) -> str:
        return self._address(mnemonic, account, RECEIVE, index)

    def deposit_key(self, mnemonic: str, account: int, index: int) -> bytes:
        return self._key(mnemonic, account, RECEIVE, index)

    def treasury_address(self, mnemonic: str, account: int) -> str:
        return self._address(mnemonic, account, CHANGE, TREASURY_INDEX)

    def treasury_key(self, mnemonic: str, account: int) -> bytes:
        return self._key(mnemonic, account, CHANGE, TREASURY_INDEX)

    def change_address(self, mnemonic: str, account: int, n: int) -> str:
        """The n-th change address (n ≥ 1; 0 is the treasury itself)."""
        if n < 1:
            raise ValueError("change addresses start at 1: index 0 of the change chain is the treasury")
        return self._address(mnemonic, account, CHANGE, n)

    def change_key(self, mnemonic: str, account: int, n: int) -> bytes:
        if n < 1:
            raise ValueError("change addresses start at 1: index 0 of the change chain is the treasury")
        return self._key(mnemonic, account, CHANGE, n)

    def display_address(self, stored: str) -> str:
        return stored  # bech32 is shown as stored: lower case is its canonical form

