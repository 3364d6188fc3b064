"""Finds the transfers a range of blocks holds for a set of addresses.

Native coin: every transaction of every block whose `to` is watched, with a value, and whose receipt says it
succeeded. Tokens: `eth_getLogs` on the ERC-20 `Transfer` topic of the network's token contracts, filtered by
recipient topics. Every block of the range is fetched anyway, so the result also carries each block's canonical
hash: the watcher compares them with what it stored to see re-organisations.

Native coin sent by a contract call (an internal transfer: a Safe, an exchange's batch payout) is in no transaction's
`to`; the watcher's balance audit finds it (server/watcher/internal.py) with the calls below: the native balances at
a block, what the address paid for the transactions paygate signed from it, and `trace_filter` to name the
transactions (where the node has the trace API: Anvil, Erigon, Reth, Nethermind, Besu; not geth).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from web3 import AsyncWeb3
from web3.exceptions import TransactionNotFound
from web3.types import BlockData, LogReceipt

from server.catalogue.catalogue import Asset, Network
from server.chains.models import INTERNAL_LOG_INDEX
from server.db.sets import chunks
from server.rails.base import ChainUnavailable, ScanResult, SeenTransfer
from server.rails.evm.client import RECIPIENTS_PER_QUERY, EvmClient, address_from_topic
from server.rails.evm.models import SignedTransaction
from server.rails.evm.transactions import decoded


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

    # ------------------------------------------------------------------ the balance audit's calls (watcher/internal.py)

    @property
    def native_asset(self) -> Asset | None:
        return self._assets.native

    async def signed_from(self, session: AsyncSession, addresses: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """(tx hash, raw bytes) of every transaction paygate signed from each of `addresses` on this network (a
        deposit address signs only its sweeps): the only way its coin leaves it. A database read, no network."""
        out: dict[str, list[tuple[str, str]]] = {}
        for part in chunks(sorted(addresses)):
            rows = await session.exec(select(SignedTransaction.source_address, SignedTransaction.tx_hash,
                                             SignedTransaction.raw)
                                      .where(SignedTransaction.network == self.network,
                                             col(SignedTransaction.source_address).in_(part)))
            for source, tx_hash, raw in rows:
                out.setdefault(source.lower(), []).append((tx_hash, raw))
        return out

    async def native_balances(self, addresses: Sequence[str], block: int) -> list[int]:
        """Each address's wei at `block`, in order: eth_getBalance, 100 calls per HTTP request."""
        answers = await self.client.raw_batch(
            [("eth_getBalance", [AsyncWeb3.to_checksum_address(a), hex(block)]) for a in addresses])
        out = []
        for address, answer in zip(addresses, answers, strict=True):
            if not isinstance(answer.get("result"), str):
                raise ChainUnavailable(f"{self.network}: eth_getBalance {address} at {block}: {answer.get('error')}")
            out.append(int(answer["result"], 16))
        return out

    async def spent(self, signed: dict[str, list[tuple[str, str]]], block: int) -> dict[str, int]:
        """Wei each address paid by `block` for the transactions it signed (`signed_from`): a mined one's fee
        (gas used times effective price, and an L2's L1 fee), and its value when it succeeded. One receipt per signed
        transaction, in batches; the replacements of a nonce that were not mined have none."""
        calls = [(address, tx_hash, raw) for address, txs in signed.items() for tx_hash, raw in txs]
        receipts = await self.client.raw_batch([("eth_getTransactionReceipt", [tx_hash]) for _, tx_hash, _ in calls])
        out = dict.fromkeys(signed, 0)
        for (address, tx_hash, raw), answer in zip(calls, receipts, strict=True):
            if "error" in answer:
                raise ChainUnavailable(f"{self.network}: eth_getTransactionReceipt {tx_hash}: {answer['error']}")
            receipt: dict[str, Any] | None = answer.get("result")
            if not receipt or int(receipt["blockNumber"], 16) > block:
                continue
            fee = int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16) \
                + int(receipt.get("l1Fee") or "0x0", 16)
            value = decoded(raw)[0].value if int(receipt["status"], 16) == 1 else 0
            out[address] += fee + value
        return out

    async def internal_transfers(self, addresses: Sequence[str], start: int, end: int) -> list[SeenTransfer] | None:
        """Native coin that calls inside transactions of [start, end] sent to `addresses` and that stayed sent (no
        reverted call on its way), in chain order; the n-th of a transaction at INTERNAL_LOG_INDEX - n. None when
        the node has no trace API (or refuses the query): the audit then records the funds without a transaction.
        A top-level transfer is the block scan's, never returned here."""
        asset = self._assets.native
        if asset is None or not addresses:
            return []
        wanted = sorted(a.lower() for a in addresses)
        groups = [wanted[i:i + RECIPIENTS_PER_QUERY] for i in range(0, len(wanted), RECIPIENTS_PER_QUERY)]
        answers = await self.client.raw_batch(
            [("trace_filter", [{"fromBlock": hex(start), "toBlock": hex(end), "toAddress": group}])
             for group in groups], size=10)
        if any(not isinstance(a.get("result"), list) for a in answers):
            return None
        traces = [t for a in answers for t in a["result"]]
        return _internal(traces, set(wanted), asset)

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


def _internal(traces: list[dict[str, Any]], recipients: set[str], asset: Asset) -> list[SeenTransfer]:
    """The value transfers to `recipients` among parity-style traces (trace_filter), each tx's in trace order.

    A call's value moved only if neither it nor any call it is nested in failed (`error`): a reverted frame undoes
    its children, which the trace still lists. DELEGATECALL and STATICCALL move no value; SELFDESTRUCT sends the
    dying contract's balance to its `refundAddress`."""
    failed = {(t["transactionHash"], tuple(t.get("traceAddress") or ())) for t in traces if t.get("error")}
    found: list[tuple[tuple[int, int, tuple[int, ...]], SeenTransfer]] = []
    ordinal: dict[str, int] = {}
    for t in sorted(traces, key=_order):
        path = tuple(t.get("traceAddress") or ())
        action, tx_hash = t.get("action") or {}, t.get("transactionHash") or ""
        if not tx_hash or not path or any((tx_hash, path[:i]) in failed for i in range(len(path) + 1)):
            continue  # a block reward, a top-level transfer (the scan's), or undone by a failed frame
        if t.get("type") == "call" and action.get("callType") == "call":
            to, sender, value = action.get("to"), action.get("from"), action.get("value")
        elif t.get("type") == "suicide":
            to, sender, value = action.get("refundAddress"), action.get("address"), action.get("balance")
        else:
            continue
        if not to or to.lower() not in recipients or not value or int(value, 16) == 0:
            continue
        n = ordinal[tx_hash] = ordinal.get(tx_hash, 0) + 1
        found.append((_order(t), SeenTransfer(
            tx_hash=tx_hash, log_index=INTERNAL_LOG_INDEX - n, block_number=int(t["blockNumber"]),
            block_hash=t["blockHash"], from_address=(sender or "").lower(), to_address=to.lower(),
            asset_id=asset.id, amount_base=int(value, 16), decimals=asset.decimals)))
    return [seen for _, seen in sorted(found, key=lambda f: f[0])]


def _order(t: dict[str, Any]) -> tuple[int, int, tuple[int, ...]]:
    return int(t.get("blockNumber") or 0), int(t.get("transactionPosition") or 0), tuple(t.get("traceAddress") or ())
