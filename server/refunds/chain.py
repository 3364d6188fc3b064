"""What refunds need from an EVM node: balances, the treasury's nonce, fees, and sending signed transactions.

Every call here is network I/O: callers make them outside any database transaction (STYLE: persist, then call out).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from eth_account import Account
from eth_typing import HexStr
from web3 import AsyncWeb3
from web3.exceptions import TransactionNotFound, Web3RPCError
from web3.providers import AsyncHTTPProvider

from server.assets.catalogue import Asset
from server.rails.base import ChainUnavailable

TRANSFER_SELECTOR = "a9059cbb"  # transfer(address,uint256)
NATIVE_GAS = 21_000
TOKEN_GAS_FALLBACK = 100_000
PRIORITY_FEE_WEI = 10**9


class Rejected(Exception):
    """The node refused a transaction outright (a JSON-RPC error, not a lost connection)."""


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
    w3 = node(rpc_url)
    return int(await _call(rpc_url, w3.eth.get_transaction_count(AsyncWeb3.to_checksum_address(address),
                                                                  "pending")))


async def fees(rpc_url: str) -> Fees:
    """EIP-1559 fees with room for the base fee to double before the transaction is mined."""
    block = await _call(rpc_url, node(rpc_url).eth.get_block("latest"))
    base = int(block.get("baseFeePerGas", 0) or 0)
    return Fees(max_fee_per_gas=2 * base + PRIORITY_FEE_WEI, max_priority_fee_per_gas=PRIORITY_FEE_WEI)


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
    """Sends the signed transaction; a node that already has it (or mined it) is not an error."""
    try:
        await _call(rpc_url, node(rpc_url).eth.send_raw_transaction(HexStr(raw)))
    except Rejected as e:
        text = str(e).lower()
        if "already known" in text or "already imported" in text or "nonce too low" in text:
            return
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
