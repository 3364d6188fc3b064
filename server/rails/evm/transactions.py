"""Building, signing, decoding and re-pricing EIP-1559 transfers. Pure CPU: safe inside a database transaction."""

from __future__ import annotations

from dataclasses import dataclass

from eth_account import Account
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from web3 import Web3

from server.rails.base import InvalidAddress, InvalidTxHash

TRANSFER_SELECTOR = "a9059cbb"  # transfer(address,uint256)
NATIVE_GAS = 21_000
TOKEN_GAS_FALLBACK = 100_000
PRIORITY_FEE_WEI = 10**9
# An EIP-1559 replacement must raise both fees by at least 12.5% (geth refuses less as underpriced): 9/8.
BUMP_NUM, BUMP_DEN = 9, 8
ADDRESS_DIGITS = 40
ZERO_ADDRESS = "0x" + "0" * ADDRESS_DIGITS
_HEX = frozenset("0123456789abcdefABCDEF")  # ASCII only: str.isdigit-style checks would let other scripts in


@dataclass(frozen=True)
class Fees:
    max_fee_per_gas: int
    max_priority_fee_per_gas: int


@dataclass(frozen=True)
class Unsigned:
    to: str  # the token contract, or the recipient for the native coin
    value: int  # wei
    data: str  # 0x…
    gas: int


def transfer_data(to: str, amount_base: int) -> str:
    return "0x" + TRANSFER_SELECTOR + to.lower().removeprefix("0x").rjust(64, "0") + format(amount_base, "064x")


def empty(source: str) -> Unsigned:
    """A 0-value transfer to itself: what cancels a transaction or fills a nonce gap."""
    return Unsigned(to=source, value=0, data="0x", gas=NATIVE_GAS)


def fees_for(base_fee: int, *, exact: bool = False) -> Fees:
    """EIP-1559 fees over a block's base fee. Normally with room for the base fee to double before the transaction
    is mined.

    `exact` (a native-coin payout whose fee comes out of the amount): the tip equals the fee cap, so the price paid
    (`min(max fee, base fee + tip)`) is exactly the cap and the fee deducted when signing is exactly the fee the
    receipt will show. The cap leaves room for two blocks of base fee rises; a slower inclusion is a stuck
    transaction, replaced with higher fees."""
    if exact:
        cap = base_fee * 5 // 4 + PRIORITY_FEE_WEI
        return Fees(max_fee_per_gas=cap, max_priority_fee_per_gas=cap)
    return Fees(max_fee_per_gas=2 * base_fee + PRIORITY_FEE_WEI, max_priority_fee_per_gas=PRIORITY_FEE_WEI)


def _raised(old: int) -> int:
    return -(-old * BUMP_NUM // BUMP_DEN) + 1  # ceil(old * 9/8), and one more wei against rounding


def bumped(old: Fees, market: Fees, *, exact: bool = False) -> Fees:
    """Fees for a replacement of a transaction signed with `old`: at least +12.5% on both, and at least the market's."""
    cap = max(_raised(old.max_fee_per_gas), market.max_fee_per_gas)
    tip = cap if exact else max(_raised(old.max_priority_fee_per_gas), market.max_priority_fee_per_gas)
    return Fees(max_fee_per_gas=max(cap, tip), max_priority_fee_per_gas=tip)


def decoded(raw: str) -> tuple[Unsigned, Fees, int]:
    """(what, fees, nonce) of a signed transaction: the base of a replacement with the same nonce."""
    tx = TypedTransaction.from_bytes(HexBytes(raw)).as_dict()
    to = "0x" + bytes(tx["to"]).hex()
    unsigned = Unsigned(to=to, value=int(tx["value"]), data="0x" + bytes(tx["data"]).hex(), gas=int(tx["gas"]))
    return unsigned, Fees(int(tx["maxFeePerGas"]), int(tx["maxPriorityFeePerGas"])), int(tx["nonce"])


def sign(private_key: bytes, chain_id: int, nonce: int, tx: Unsigned, fee: Fees) -> tuple[str, str]:
    """(raw 0x…, tx hash 0x…)."""
    signed = Account.sign_transaction({
        "to": Web3.to_checksum_address(tx.to), "value": tx.value, "data": tx.data, "gas": tx.gas,
        "nonce": nonce, "chainId": chain_id, "maxFeePerGas": fee.max_fee_per_gas,
        "maxPriorityFeePerGas": fee.max_priority_fee_per_gas, "type": 2}, private_key)
    return "0x" + signed.raw_transaction.hex(), signed.hash.to_0x_hex()


def normalize_tx_hash(value: str) -> str:
    """A transaction hash in its stored form: lower-case `0x` and 64 hex digits. Raises InvalidTxHash."""
    digits = value[2:] if value[:2] in ("0x", "0X") else ""
    if len(digits) != 64 or any(c not in _HEX for c in digits):
        raise InvalidTxHash(f"{value!r} is not a transaction hash on this network (0x and 64 hex digits)")
    return "0x" + digits.lower()


def normalize_address(value: str) -> str:
    """An EVM address in its stored form: lower-case `0x` and 40 hex digits. Accepts all lower or all upper case, or
    mixed case carrying a valid EIP-55 checksum, after a `0x` (or `0X`) prefix. Raises InvalidAddress saying why.

    The prefix is required: 40 bare digits stored as given would never equal the same address with its prefix (a
    second payout address for one destination). The zero address is refused: native coin sent to it is burnt and a
    token transfer to it reverts after its gas is spent. web3 8's `is_address` no longer checks the checksum of a
    mixed-case address, so it is checked here."""
    shown = repr(value)
    if value[:2] not in ("0x", "0X"):
        raise InvalidAddress(f"{shown} is not an address on this network (an EVM address is 0x and 40 hex digits)")
    digits = value[2:]
    if len(digits) != ADDRESS_DIGITS or any(c not in _HEX for c in digits):
        raise InvalidAddress(f"{shown} is not an address on this network (an EVM address is 0x and 40 hex digits)")
    if digits != digits.lower() and digits != digits.upper() and not Web3.is_checksum_address("0x" + digits):
        raise InvalidAddress(f"{shown} is not an address on this network (a mixed-case address needs a valid EIP-55 "
                             "checksum)")
    address = "0x" + digits.lower()
    if address == ZERO_ADDRESS:
        raise InvalidAddress(f"{shown} is the zero address: what is sent to it is lost")
    return address
