"""What refunds need from an EVM node: balances, the treasury's nonce, fees, and sending signed transactions.

Every call here is network I/O: callers make them outside any database transaction (STYLE: persist, then call out).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from eth_account import Account
from eth_account.typed_transactions import TypedTransaction
from eth_typing import HexStr
from hexbytes import HexBytes
from web3 import AsyncWeb3
from web3.exceptions import TransactionNotFound, Web3RPCError
from web3.providers import AsyncHTTPProvider

from server.assets.catalogue import Asset
from server.rails.base import ChainUnavailable

TRANSFER_SELECTOR = "a9059cbb"  # transfer(address,uint256)
NATIVE_GAS = 21_000
TOKEN_GAS_FALLBACK = 100_000
PRIORITY_FEE_WEI = 10**9
# An EIP-1559 replacement must raise both fees by at least 12.5% (geth refuses less as underpriced): 9/8.
BUMP_NUM, BUMP_DEN = 9, 8


class Rejected(Exception):
    """The node refused a transaction outright (a JSON-RPC error, not a lost connection). Refused is not failed:
    the same transaction may still be in another node's pool and be mined; only the nonce tells."""


class NonceTaken(Rejected):
    """"nonce too low": a transaction with this nonce was mined, ours or another one."""


class Underpriced(Rejected):
    """The fees are below the base fee, or too low to replace the transaction already pooled with this nonce."""


@dataclass(frozen=True)
class Fees:
    max_fee_per_gas: int
    max_priority_fee_per_gas: int


@dataclass(frozen=True)
class Unsigned:
    to: str  # the token contract, or the customer for the native coin
    value: int  # wei
    data: str  # 0x…
    gas: int


@cache
def node(rpc_url: str) -> AsyncWeb3:
    return AsyncWeb3(AsyncHTTPProvider(rpc_url, request_kwargs={"timeout": 30}))


def transfer_data(to: str, amount_base: int) -> str:
    return "0x" + TRANSFER_SELECTOR + to.lower().removeprefix("0x").rjust(64, "0") + format(amount_base, "064x")


async def _call(rpc_url: str, awaitable: Any) -> Any:
    try:
        return await awaitable
    except (TransactionNotFound, ChainUnavailable):
        raise  # TransactionNotFound is also a Web3RPCError: an answer, not a refusal
    except Web3RPCError as e:
        raise Rejected(str(e)) from e
    except Exception as e:
        raise ChainUnavailable(f"{rpc_url}: {e}") from e


async def balance(rpc_url: str, asset: Asset, address: str) -> int:
    """The address's balance of `asset` in smallest units."""
    w3 = node(rpc_url)
    owner = AsyncWeb3.to_checksum_address(address)
    if not asset.contract_address:
        return await native_balance(rpc_url, address)
    data = "0x70a08231" + owner.lower().removeprefix("0x").rjust(64, "0")  # balanceOf(address)
    raw = await _call(rpc_url, w3.eth.call({"to": AsyncWeb3.to_checksum_address(asset.contract_address),
                                            "data": data}))  # type: ignore[typeddict-item]
    return int.from_bytes(bytes(raw), "big") if raw else 0


async def native_balance(rpc_url: str, address: str) -> int:
    """The address's native coin balance in wei (what pays gas)."""
    return int(await _call(rpc_url, node(rpc_url).eth.get_balance(AsyncWeb3.to_checksum_address(address))))


async def pending_nonce(rpc_url: str, address: str) -> int:
    return await nonce_at(rpc_url, address, "pending")


async def nonce_at(rpc_url: str, address: str, block: int | str) -> int:
    """The address's transaction count at `block` ("latest", "pending" or a number): the nonces it has used."""
    w3 = node(rpc_url)
    return int(await _call(rpc_url, w3.eth.get_transaction_count(AsyncWeb3.to_checksum_address(address),
                                                                  block)))  # type: ignore[arg-type]


async def fees(rpc_url: str, *, exact: bool = False) -> Fees:
    """EIP-1559 fees. Normally with room for the base fee to double before the transaction is mined.

    `exact` (a native-coin refund, whose fee comes out of the amount): the tip equals the fee cap, so the price paid
    (`min(max fee, base fee + tip)`) is exactly the cap and the fee deducted when signing is exactly the fee the
    receipt will show. The cap leaves room for two blocks of base fee rises; a slower inclusion is a stuck
    transaction, replaced with higher fees."""
    block = await _call(rpc_url, node(rpc_url).eth.get_block("latest"))
    base = int(block.get("baseFeePerGas", 0) or 0)
    if exact:
        cap = base * 5 // 4 + PRIORITY_FEE_WEI
        return Fees(max_fee_per_gas=cap, max_priority_fee_per_gas=cap)
    return Fees(max_fee_per_gas=2 * base + PRIORITY_FEE_WEI, max_priority_fee_per_gas=PRIORITY_FEE_WEI)


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


async def unsigned(rpc_url: str, asset: Asset, source: str, to: str, amount_base: int) -> Unsigned:
    """The transfer to sign, gas included (for a token, estimated by the node with a margin)."""
    if not asset.contract_address:
        return Unsigned(to=to, value=amount_base, data="0x", gas=NATIVE_GAS)
    data = transfer_data(to, amount_base)
    contract = AsyncWeb3.to_checksum_address(asset.contract_address)
    try:
        gas = int(await _call(rpc_url, node(rpc_url).eth.estimate_gas({
            "from": AsyncWeb3.to_checksum_address(source), "to": contract, "data": HexStr(data)})))
        gas = gas * 12 // 10
    except Rejected:
        gas = TOKEN_GAS_FALLBACK
    return Unsigned(to=contract, value=0, data=data, gas=gas)


def sign(private_key: bytes, chain_id: int, nonce: int, tx: Unsigned, fee: Fees) -> tuple[str, str]:
    """(raw 0x…, tx hash 0x…). Pure CPU: safe inside a database transaction."""
    signed = Account.sign_transaction({
        "to": AsyncWeb3.to_checksum_address(tx.to), "value": tx.value, "data": tx.data, "gas": tx.gas,
        "nonce": nonce, "chainId": chain_id, "maxFeePerGas": fee.max_fee_per_gas,
        "maxPriorityFeePerGas": fee.max_priority_fee_per_gas, "type": 2}, private_key)
    return "0x" + signed.raw_transaction.hex(), signed.hash.to_0x_hex()


async def broadcast(rpc_url: str, raw: str) -> None:
    """Sends the signed transaction; a node that already has it is not an error. "nonce too low" is NOT success:
    the nonce may have gone to another transaction (`NonceTaken`); the caller looks for a receipt of its own."""
    try:
        await _call(rpc_url, node(rpc_url).eth.send_raw_transaction(HexStr(raw)))
    except Rejected as e:
        text = str(e).lower()
        if "already known" in text or "already imported" in text:
            return
        if "nonce too low" in text or "nonce has already been used" in text:
            raise NonceTaken(str(e)) from e
        if "underpriced" in text or "base fee" in text or "fee cap" in text or "feecap" in text:
            raise Underpriced(str(e)) from e
        raise


async def known(rpc_url: str, tx_hash: str) -> bool:
    try:
        await _call(rpc_url, node(rpc_url).eth.get_transaction(tx_hash))  # type: ignore[arg-type]
    except TransactionNotFound:
        return False
    return True


async def receipt(rpc_url: str, tx_hash: str) -> dict[str, Any] | None:
    try:
        found = await _call(rpc_url, node(rpc_url).eth.get_transaction_receipt(tx_hash))  # type: ignore[arg-type]
    except TransactionNotFound:
        return None
    return dict(found) if found else None


async def head(rpc_url: str) -> int:
    return int(await _call(rpc_url, node(rpc_url).eth.block_number))
