"""What payouts need from an EVM node: balances, nonces, fees, gas, sending signed transactions and their receipts.

Every call here is network I/O: callers make them outside any database transaction (STYLE: persist, then call out).
One connection pool per RPC URL, shared by every payout of the process.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import httpx
from eth_typing import HexStr
from web3 import AsyncWeb3
from web3.exceptions import ContractLogicError, TransactionNotFound, Web3RPCError
from web3.providers import AsyncHTTPProvider

from server.catalogue.catalogue import Asset
from server.rails.base import ChainUnavailable
from server.rails.evm.transactions import NATIVE_GAS, TOKEN_GAS_FALLBACK, Fees, Unsigned, fees_for, transfer_data
from server.tls import client_context


class Rejected(Exception):
    """The node refused a transaction outright (a JSON-RPC error, not a lost connection). Refused is not failed:
    the same transaction may still be in another node's pool and be mined; only the nonce tells."""


class NonceTaken(Rejected):
    """"nonce too low": a transaction with this nonce was mined, ours or another one."""


class Underpriced(Rejected):
    """The fees are below the base fee, or too low to replace the transaction already pooled with this nonce."""


# Calls per JSON-RPC batch request (`Node.balances`): nodes cap a batch (geth: 1000; hosted ones often 100).
BATCH_SIZE = 100


@cache
def _web3(rpc_url: str) -> AsyncWeb3:
    return AsyncWeb3(AsyncHTTPProvider(rpc_url, request_kwargs={"timeout": 30}))


def _balance_call(asset: Asset, address: str) -> tuple[str, list[Any]]:
    """The JSON-RPC method and params that read `address`'s balance of `asset` (native: eth_getBalance; a token:
    balanceOf through eth_call), at the latest block."""
    owner = AsyncWeb3.to_checksum_address(address)
    if not asset.contract_address:
        return "eth_getBalance", [owner, "latest"]
    data = "0x70a08231" + owner.lower().removeprefix("0x").rjust(64, "0")  # balanceOf(address)
    return "eth_call", [{"to": AsyncWeb3.to_checksum_address(asset.contract_address), "data": data}, "latest"]


class Node:
    def __init__(self, rpc_url: str) -> None:
        self.rpc_url = rpc_url
        self.w3 = _web3(rpc_url)

    async def _call(self, awaitable: Any) -> Any:
        try:
            return await awaitable
        except (TransactionNotFound, ChainUnavailable):
            raise  # TransactionNotFound is also a Web3RPCError: an answer, not a refusal
        except (Web3RPCError, ContractLogicError) as e:  # a call or gas estimate that reverts is an answer too
            raise Rejected(str(e)) from e
        except Exception as e:
            raise ChainUnavailable(f"{self.rpc_url}: {e}") from e

    async def balance(self, asset: Asset, address: str) -> int:
        """The address's balance of `asset` in smallest units."""
        owner = AsyncWeb3.to_checksum_address(address)
        if not asset.contract_address:
            return await self.native_balance(address)
        data = "0x70a08231" + owner.lower().removeprefix("0x").rjust(64, "0")  # balanceOf(address)
        raw = await self._call(self.w3.eth.call({"to": AsyncWeb3.to_checksum_address(asset.contract_address),
                                                 "data": data}))  # type: ignore[typeddict-item]
        return int.from_bytes(bytes(raw), "big") if raw else 0

    async def balances(self, wanted: Sequence[tuple[Asset, str]]) -> list[int]:
        """What each (asset, address) holds in smallest units, in order: JSON-RPC batch requests of BATCH_SIZE
        calls (one HTTP request each) instead of one request per call. Any call unanswered: ChainUnavailable."""
        calls = [_balance_call(asset, address) for asset, address in wanted]
        out: list[int] = []
        async with httpx.AsyncClient(timeout=30, verify=client_context()) as client:
            for start in range(0, len(calls), BATCH_SIZE):
                chunk = calls[start:start + BATCH_SIZE]
                batch = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(chunk)]
                try:
                    response = await client.post(self.rpc_url, json=batch)
                    response.raise_for_status()
                    answers = response.json()
                except (httpx.HTTPError, ValueError) as e:
                    raise ChainUnavailable(f"{self.rpc_url}: {e}") from e
                by_id = {a.get("id"): a for a in answers if isinstance(a, dict)} if isinstance(answers, list) else {}
                for i in range(len(chunk)):
                    result = by_id.get(i, {}).get("result")
                    if not isinstance(result, str):
                        raise ChainUnavailable(f"{self.rpc_url}: no balance in the batch's answer {i}: "
                                               f"{by_id.get(i, {}).get('error')}")
                    out.append(int(result, 16) if result not in ("0x", "") else 0)
        return out

    async def native_balance(self, address: str) -> int:
        """The address's native coin balance in wei (what pays gas)."""
        return int(await self._call(self.w3.eth.get_balance(AsyncWeb3.to_checksum_address(address))))

    async def nonce_at(self, address: str, block: int | str) -> int:
        """The address's transaction count at `block` ("latest", "pending" or a number): the nonces it has used."""
        return int(await self._call(self.w3.eth.get_transaction_count(AsyncWeb3.to_checksum_address(address),
                                                                      block)))  # type: ignore[arg-type]

    async def fees(self, *, exact: bool = False) -> Fees:
        """EIP-1559 fees over the latest block's base fee (see `transactions.fees_for`)."""
        block = await self._call(self.w3.eth.get_block("latest"))
        return fees_for(int(block.get("baseFeePerGas", 0) or 0), exact=exact)

    async def unsigned(self, asset: Asset, source: str, to: str, amount_base: int) -> Unsigned:
        """The transfer to sign, gas included (for a token, estimated by the node with a margin)."""
        if not asset.contract_address:
            return Unsigned(to=to, value=amount_base, data="0x", gas=NATIVE_GAS)
        data = transfer_data(to, amount_base)
        contract = AsyncWeb3.to_checksum_address(asset.contract_address)
        try:
            gas = int(await self._call(self.w3.eth.estimate_gas({
                "from": AsyncWeb3.to_checksum_address(source), "to": contract, "data": HexStr(data)})))
            gas = gas * 12 // 10
        except Rejected:
            gas = TOKEN_GAS_FALLBACK
        return Unsigned(to=contract, value=0, data=data, gas=gas)

    async def broadcast(self, raw: str) -> None:
        """Sends the signed transaction; a node that already has it is not an error. "nonce too low" is NOT success:
        the nonce may have gone to another transaction (`NonceTaken`); the caller looks for a receipt of its own."""
        try:
            await self._call(self.w3.eth.send_raw_transaction(HexStr(raw)))
        except Rejected as e:
            text = str(e).lower()
            if "already known" in text or "already imported" in text:
                return
            if "nonce too low" in text or "nonce has already been used" in text:
                raise NonceTaken(str(e)) from e
            if "underpriced" in text or "base fee" in text or "fee cap" in text or "feecap" in text:
                raise Underpriced(str(e)) from e
            raise

    async def known(self, tx_hash: str) -> bool:
        try:
            await self._call(self.w3.eth.get_transaction(tx_hash))  # type: ignore[arg-type]
        except TransactionNotFound:
            return False
        return True

    async def receipt(self, tx_hash: str) -> dict[str, Any] | None:
        try:
            found = await self._call(self.w3.eth.get_transaction_receipt(tx_hash))  # type: ignore[arg-type]
        except TransactionNotFound:
            return None
        return dict(found) if found else None

    async def head(self) -> int:
        return int(await self._call(self.w3.eth.block_number))
