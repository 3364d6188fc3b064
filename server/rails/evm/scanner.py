"""Finds the transfers a range of blocks holds for a set of addresses.

Native coin: every transaction of every block whose `to` is watched, with a value, and whose receipt says it
succeeded. Tokens: `eth_getLogs` on the ERC-20 `Transfer` topic of the network's token contracts, filtered by
recipient topics. Every block of the range is fetched anyway, so the result also carries each block's canonical
hash: the watcher compares them with what it stored to see re-organisations.
"""

from __future__ import annotations

from dataclasses import dataclass

from web3.exceptions import TransactionNotFound
from web3.types import BlockData, LogReceipt

from server.assets.catalogue import Asset, Network
from server.rails.base import ChainUnavailable, ScanResult, SeenTransfer
from server.rails.evm.client import EvmClient, address_from_topic


@dataclass(frozen=True)
class _Assets:
    native: Asset | None
    tokens: dict[str, Asset]  # lower-case contract address → asset

    @classmethod
    def of(cls, network: Network) -> _Assets:
        native = next((a for a in network.assets if not a.contract_address), None)
        tokens = {a.contract_address.lower(): a for a in network.assets if a.contract_address}
        return cls(native, tokens)


class EvmScanner:
    def __init__(self, network: Network, client: EvmClient) -> None:
        self.network = network.id
        self.chain_id = network.chain_id
        self.client = client
        self._assets = _Assets.of(network)

    @classmethod
    def for_network(cls, network: Network) -> EvmScanner:
        return cls(network, EvmClient(network.rpc_url))

    async def check(self) -> None:
        served = await self.client.chain_id()
        if self.chain_id and served != self.chain_id:
            raise ChainUnavailable(f"{self.client.rpc_url} serves chain {served}, network {self.network} is "
                                   f"chain {self.chain_id}")

    async def close(self) -> None:
        await self.client.close()

    async def head(self) -> int:
        return await self.client.block_number()

    async def block_hash(self, number: int) -> str | None:
        block = await self.client.block(number)
        return None if block is None else block["hash"].to_0x_hex()

    async def scan(self, start: int, end: int, recipients: set[str]) -> ScanResult:
        numbers = list(range(start, end + 1))
        blocks = await self.client.blocks(numbers, full=bool(recipients) and self._assets.native is not None)
        hashes: dict[int, str] = {}
        times: dict[int, int] = {}
        parent = ""
        for n, block in zip(numbers, blocks, strict=True):
            if block is None:
                raise ChainUnavailable(f"{self.network}: block {n} vanished during the scan")
            if n > start and block["parentHash"].to_0x_hex() != hashes[n - 1]:
                raise ChainUnavailable(f"{self.network}: blocks {n - 1} and {n} are on different forks")
            hashes[n] = block["hash"].to_0x_hex()
            times[n] = int(block["timestamp"])
            parent = parent or block["parentHash"].to_0x_hex()
        transfers: list[SeenTransfer] = []
        if recipients:
            transfers += await self._native(blocks, recipients)
            logs = await self.client.transfer_logs(list(self._assets.tokens), list(recipients), start, end)
            transfers += self._tokens(logs, hashes)
        return ScanResult(start=start, end=end, parent_hash=parent, hashes=hashes, transfers=transfers, times=times)

    async def transfers_of(self, tx_hash: str, recipients: set[str]) -> tuple[list[SeenTransfer], int]:
        try:
            receipt = await self.client.w3.eth.get_transaction_receipt(tx_hash)  # type: ignore[arg-type]
        except TransactionNotFound:
            receipt = None
        except Exception as e:
            raise ChainUnavailable(f"{self.client.rpc_url}: eth_getTransactionReceipt: {e}") from e
        head = await self.head()
        if receipt is None or receipt["status"] != 1:
            return [], head
        block = int(receipt["blockNumber"])
        found = (await self.scan(block, block, recipients)).transfers
        return [t for t in found if t.tx_hash.lower() == tx_hash.lower()], head

    async def _native(self, blocks: list[BlockData | None], recipients: set[str]) -> list[SeenTransfer]:
        asset = self._assets.native
        if asset is None:
            return []
        candidates = []
        for block in blocks:
            assert block is not None
            for tx in block["transactions"]:
                if isinstance(tx, bytes):
                    continue
                to = (tx.get("to") or "").lower()
                if to in recipients and tx["value"] > 0:
                    candidates.append((block, tx))
        # A plain transfer to an account cannot fail, but a value sent along a call can: only a receipt says.
        receipts = await self.client.receipts([tx["hash"].to_0x_hex() for _, tx in candidates])
        found = []
        for (block, tx), receipt in zip(candidates, receipts, strict=True):
            if receipt["status"] != 1:
                continue
            found.append(SeenTransfer(
                tx_hash=tx["hash"].to_0x_hex(), log_index=-1, block_number=block["number"],
                block_hash=block["hash"].to_0x_hex(), from_address=tx["from"].lower(), to_address=tx["to"].lower(),
                asset_id=asset.id, amount_base=int(tx["value"]), decimals=asset.decimals))
        return found

    def _tokens(self, logs: list[LogReceipt], hashes: dict[int, str]) -> list[SeenTransfer]:
        found = []
        for log in logs:
            asset = self._assets.tokens.get(log["address"].lower())
            if asset is None or log.get("removed") or len(log["topics"]) != 3:
                continue  # a non-standard Transfer (e.g. ERC-721's indexed token id) is not a payment
            block_hash = log["blockHash"].to_0x_hex()
            if hashes.get(log["blockNumber"]) != block_hash:
                raise ChainUnavailable(f"{self.network}: logs and blocks of {log['blockNumber']} disagree")
            found.append(SeenTransfer(
                tx_hash=log["transactionHash"].to_0x_hex(), log_index=log["logIndex"],
                block_number=log["blockNumber"], block_hash=block_hash,
                from_address=address_from_topic(log["topics"][1]), to_address=address_from_topic(log["topics"][2]),
                asset_id=asset.id, amount_base=int.from_bytes(bytes(log["data"])[:32], "big"),
                decimals=asset.decimals))
        return found
