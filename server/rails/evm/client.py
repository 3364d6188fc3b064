"""JSON-RPC over web3.py 8, batched: one HTTP round trip per group of blocks, receipts or log queries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from web3 import AsyncWeb3
from web3.exceptions import BlockNotFound
from web3.providers import AsyncHTTPProvider
from web3.types import BlockData, LogReceipt, RPCEndpoint, TxReceipt

from server.rails.base import ChainUnavailable

# keccak("Transfer(address,address,uint256)")
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
# Recipient topics per eth_getLogs query. Nodes accept hundreds; hosted RPCs cap request sizes, so stay moderate.
RECIPIENTS_PER_QUERY = 500
# Queries per JSON-RPC batch: nodes cap the size of a request body (Anvil refuses a few megabytes).
QUERIES_PER_BATCH = 10


def topic_for(address: str) -> str:
    """An address as a 32-byte log topic."""
    return "0x" + address.lower().removeprefix("0x").rjust(64, "0")


def address_from_topic(topic: bytes) -> str:
    return "0x" + bytes(topic)[-20:].hex()


class EvmClient:
    def __init__(self, rpc_url: str, *, timeout: float = 30) -> None:
        self.rpc_url = rpc_url
        self.w3 = AsyncWeb3(AsyncHTTPProvider(rpc_url, request_kwargs={"timeout": timeout}))

    async def chain_id(self) -> int:
        return int(await self._call(self.w3.eth.chain_id))

    async def block_number(self) -> int:
        return int(await self._call(self.w3.eth.block_number))

    async def block(self, number: int) -> BlockData | None:
        """The block header at `number`, None beyond the head."""
        try:
            return await self.w3.eth.get_block(number)
        except BlockNotFound:
            return None
        except Exception as e:
            raise ChainUnavailable(f"{self.rpc_url}: eth_getBlockByNumber: {e}") from e

    async def blocks(self, numbers: Sequence[int], *, full: bool = True) -> list[BlockData | None]:
        """The blocks at `numbers` (None beyond the head), with transaction objects when `full`."""
        if not numbers:
            return []
        try:
            async with self.w3.batch_requests() as batch:
                for n in numbers:
                    batch.add(self.w3.eth.get_block(n, full))
                found: list[Any] = await batch.async_execute()
        except Exception as e:
            raise ChainUnavailable(f"{self.rpc_url}: eth_getBlockByNumber: {e}") from e
        return [b if b else None for b in found]

    async def receipts(self, tx_hashes: Sequence[str]) -> list[TxReceipt]:
        if not tx_hashes:
            return []
        try:
            async with self.w3.batch_requests() as batch:
                for h in tx_hashes:
                    batch.add(self.w3.eth.get_transaction_receipt(h))  # type: ignore[arg-type]
                found: list[Any] = await batch.async_execute()
            return found
        except Exception as e:
            raise ChainUnavailable(f"{self.rpc_url}: eth_getTransactionReceipt: {e}") from e

    async def transfer_logs(self, contracts: Sequence[str], recipients: Sequence[str],
                            start: int, end: int) -> list[LogReceipt]:
        """ERC-20 Transfer logs of `contracts` in [start, end] whose recipient is one of `recipients`."""
        if not contracts or not recipients:
            return []
        topics = [topic_for(a) for a in sorted(recipients)]
        chunks = [topics[i:i + RECIPIENTS_PER_QUERY] for i in range(0, len(topics), RECIPIENTS_PER_QUERY)]
        addresses = [AsyncWeb3.to_checksum_address(c) for c in contracts]
        results: list[Any] = []
        for group in range(0, len(chunks), QUERIES_PER_BATCH):
            try:
                async with self.w3.batch_requests() as batch:
                    for chunk in chunks[group:group + QUERIES_PER_BATCH]:
                        batch.add(self.w3.eth.get_logs({
                            "fromBlock": start, "toBlock": end, "address": addresses,
                            "topics": [TRANSFER_TOPIC, None, chunk],
                        }))
                    results += await batch.async_execute()
            except Exception as e:
                raise ChainUnavailable(f"{self.rpc_url}: eth_getLogs: {e}") from e
        return [log for logs in results for log in logs]

    async def raw_batch(self, calls: Sequence[tuple[str, list[Any]]], *, size: int = 100) -> list[dict[str, Any]]:
        """Plain JSON-RPC answers (`result` or `error`, nothing decoded) of `calls`, in order, `size` calls per HTTP
        request. An `error` answer is the caller's to read, and so is a batch refused as a whole (one error object:
        every call of it gets that answer); no answer at all, or a partial one, is ChainUnavailable."""
        out: list[dict[str, Any]] = []
        for start in range(0, len(calls), size):
            chunk = [(RPCEndpoint(method), params) for method, params in calls[start:start + size]]
            try:
                answers = await self.w3.provider.make_batch_request(chunk)
            except Exception as e:
                raise ChainUnavailable(f"{self.rpc_url}: {chunk[0][0]}: {e}") from e
            if isinstance(answers, dict) and "error" in answers:
                out += [dict(answers)] * len(chunk)
                continue
            if not isinstance(answers, list) or len(answers) != len(chunk):
                raise ChainUnavailable(f"{self.rpc_url}: {chunk[0][0]}: the batch was not answered: {answers!r:.200}")
            out += [dict(a) for a in answers]
        return out

    async def close(self) -> None:
        await self.w3.provider.disconnect()

    async def _call(self, awaitable: Any) -> Any:
        try:
            return await awaitable
        except Exception as e:
            raise ChainUnavailable(f"{self.rpc_url}: {e}") from e
