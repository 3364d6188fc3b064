"""Addresses and transaction ids of a Bitcoin-family network, in the one form rows keep and compare; pure, no node.

* bech32 (segwit v0: P2WPKH, P2WSH) and bech32m (v1: taproot) of the network's human-readable part (`hrp`): stored
  lower-case. BIP-173 allows all upper case (QR codes use it), never mixed case: mixed case is refused, since it is
  what a mistyped address looks like.
* base58check P2PKH and P2SH of the network's version bytes: stored exactly as given, because base58 is
  case-sensitive (lower-casing one gives another string that fails its checksum).

The network is named by its hrp: a UTXO network has one, and the base58 versions follow from it (`BASE58`).
Encoding and checksums are embit's.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from embit import base58, bech32
from embit.script import Script

from server.rails.base import InvalidAddress, InvalidTxHash


@dataclass(frozen=True)
class Base58Versions:
    p2pkh: tuple[int, ...]
    p2sh: tuple[int, ...]  # the first is the one the node writes; Litecoin still reads its old P2SH version


# Version bytes by hrp (chainparams.cpp of Bitcoin Core and Litecoin Core). Litecoin moved P2SH from Bitcoin's
# 0x05/0xc4 to 0x32 ("M…") and 0x3a ("Q…"); its nodes still accept the old versions, so paygate does too.
BASE58: dict[str, Base58Versions] = {
    "ltc": Base58Versions(p2pkh=(0x30,), p2sh=(0x32, 0x05)),
    "tltc": Base58Versions(p2pkh=(0x6F,), p2sh=(0x3A, 0xC4)),
    "rltc": Base58Versions(p2pkh=(0x6F,), p2sh=(0x3A, 0xC4)),
    "bc": Base58Versions(p2pkh=(0x00,), p2sh=(0x05,)),
    "tb": Base58Versions(p2pkh=(0x6F,), p2sh=(0xC4,)),
    "bcrt": Base58Versions(p2pkh=(0x6F,), p2sh=(0xC4,)),
}

# MWEB (Litecoin's extension block) addresses are bech32-like but longer than bech32 allows and cannot be watched
# with blocks' outputs: named, so the refusal says why instead of "bad checksum".
_MWEB_PREFIXES = ("ltcmweb1", "tmweb1")
_BASE58_ALPHABET = frozenset(base58.B58_DIGITS)
_HEX = frozenset(string.hexdigits)
_PRINTABLE_ASCII = frozenset(chr(c) for c in range(33, 127))


def _versions(hrp: str) -> Base58Versions:
    versions = BASE58.get(hrp)
    if versions is None:
        raise ValueError(f"no base58 version bytes known for hrp {hrp!r} (server/rails/utxo/addresses.py BASE58)")
    return versions


def normalize_address(hrp: str, value: str) -> str:
    """`value` in its stored form on the network of `hrp`. Raises InvalidAddress saying why."""
    shown = repr(value)
    if not isinstance(value, str) or not value:
        raise InvalidAddress(f"{shown} is not an address on this network")
    if any(c not in _PRINTABLE_ASCII for c in value):
        raise InvalidAddress(f"{shown} is not an address on this network (only printable ASCII characters, no spaces)")
    lower = value.lower()
    if lower.startswith(_MWEB_PREFIXES):
        raise InvalidAddress(f"{shown} is an MWEB address: paygate pays and watches only ordinary outputs")
    if lower.startswith(hrp + "1"):
        return _segwit(hrp, value, shown)
    if all(c in _BASE58_ALPHABET for c in value):
        return _base58(hrp, value, shown)
    encoding, other_hrp, _ = bech32.bech32_decode(value)
    if encoding is not None:
        raise InvalidAddress(f"{shown} is an address of another network (bech32 prefix {other_hrp!r}, this "
                             f"network's is {hrp!r})")
    raise InvalidAddress(f"{shown} is not an address on this network (expected {hrp}1… bech32 or a base58 address)")


def _segwit(hrp: str, value: str, shown: str) -> str:
    if value != value.lower() and value != value.upper():
        raise InvalidAddress(f"{shown} mixes upper and lower case: a bech32 address is written in one case")
    lower = value.lower()
    encoding, _, data = bech32.bech32_decode(lower)
    if encoding is None or not data:
        raise InvalidAddress(f"{shown} is not a valid bech32 address (bad checksum or characters)")
    version, program = bech32.decode(hrp, lower)
    if version is None or program is None:
        # The checksum holds, so the witness version, program length or bech32/bech32m variant is wrong.
        raise InvalidAddress(f"{shown} is not a valid segwit address (witness version {data[0]}: wrong program "
                             "length or checksum variant)")
    if version == 0:
        return lower  # 20 bytes (P2WPKH) or 32 (P2WSH): bech32.decode has checked the length
    if version == 1 and len(program) == 32:
        return lower
    # Outputs of a future witness version are spendable by anyone until a soft fork gives them rules.
    raise InvalidAddress(f"{shown} is a segwit version {version} address ({len(program)}-byte program): only "
                         "version 0 and taproot (version 1, 32 bytes) are accepted")


def _base58(hrp: str, value: str, shown: str) -> str:
    try:
        payload = base58.decode_check(value)
    except (ValueError, IndexError):
        raise InvalidAddress(f"{shown} is not a valid base58 address (bad checksum)") from None
    if len(payload) != 21:
        raise InvalidAddress(f"{shown} is not a base58 address ({len(payload)} bytes where 21 are expected)")
    versions = BASE58.get(hrp)
    if versions is None:
        raise InvalidAddress(f"{shown} is a base58 address: this network ({hrp}) takes only bech32 addresses")
    if payload[0] not in versions.p2pkh + versions.p2sh:
        raise InvalidAddress(f"{shown} is a base58 address of another network (version byte {payload[0]:#04x})")
    return value


def normalize_tx_hash(value: str) -> str:
    """A transaction id in its stored form: 64 hex digits, lower-case, no prefix (as the node writes it)."""
    if not isinstance(value, str) or len(value) != 64 or any(c not in _HEX for c in value):
        raise InvalidTxHash(f"{value!r} is not a transaction id on this network (64 hex digits)")
    return value.lower()


# ------------------------------------------------------------------------------------------- scripts and addresses


@lru_cache(maxsize=65536)
def script_of(hrp: str, address: str) -> bytes:
    """The scriptPubKey that pays a stored-form `address` (what a block's output carries). Raises InvalidAddress."""
    stored = normalize_address(hrp, address)
    if stored.startswith(hrp + "1"):
        version, program = bech32.decode(hrp, stored)
        assert version is not None and program is not None  # normalize_address has decoded it
        return bytes([version + 0x50 if version else 0, len(program), *program])
    payload = base58.decode_check(stored)
    if payload[0] in _versions(hrp).p2pkh:
        return b"\x76\xa9\x14" + payload[1:] + b"\x88\xac"
    return b"\xa9\x14" + payload[1:] + b"\x87"


def address_of(hrp: str, script: bytes) -> str:
    """The stored-form address a scriptPubKey pays, "" for a script without one (OP_RETURN, bare multisig, MWEB)."""
    parsed = Script(script)
    kind = parsed.script_type()
    if kind in ("p2wpkh", "p2wsh", "p2tr"):
        return str(parsed.address({"bech32": hrp}))
    if kind == "p2pkh":
        return base58.encode_check(bytes([_versions(hrp).p2pkh[0]]) + script[3:23])
    if kind == "p2sh":
        return base58.encode_check(bytes([_versions(hrp).p2sh[0]]) + script[2:22])
    return ""


# ------------------------------------------------------------------------------------------- BIP-21


def payment_uri(scheme: str, address: str, amount: Decimal | None = None, decimals: int = 8) -> str:
    """A BIP-21 URI (`litecoin:<address>?amount=<coins>`) for the checkout's QR code. The amount is in whole coins,
    plain decimal notation (no exponent), at most `decimals` places; an amount that would round is refused."""
    if not scheme or not all(c in string.ascii_letters + string.digits + "+-." for c in scheme) \
            or not scheme[0].isalpha():
        raise ValueError(f"{scheme!r} is not a URI scheme")
    if amount is None:
        return f"{scheme}:{address}"
    try:
        exact = amount.quantize(Decimal(1).scaleb(-decimals))
    except InvalidOperation:
        raise ValueError(f"{amount!r} is not a payable amount") from None
    if not amount.is_finite() or amount <= 0 or exact != amount:
        raise ValueError(f"{amount!r} is not a positive amount with at most {decimals} decimals")
    text = format(exact, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{scheme}:{address}?amount={text}"
