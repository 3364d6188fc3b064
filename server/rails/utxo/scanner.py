"""Finds the outputs a range of blocks, or the mempool, pays to a set of addresses.

Each output paying a watched address is one `SeenTransfer`: `tx_hash` the txid, `log_index` the output index
(vout), so one transaction paying an address twice is two transfers. Outputs are matched by scriptPubKey (the bytes
an address stands for), never by the node's rendering of addresses, which differs between versions ("addresses" in
0.21, "address" from 22.0). Amounts are exact: the node's JSON numbers are read as Decimal.

Left out on purpose:
* coinbase outputs: unspendable for 100 blocks, and gone for good when their block is re-organised away (a payment
  is re-mined in the new chain; a coinbase never is);
* MWEB (Litecoin's extension block): its outputs are not in a block's transaction list, and the HogEx transaction's
  output pays no address.

`from_address` is the address the transaction's first input spent, where that can be known, and `from_addresses`
every input's (in input order, each once: AML screening reads them all, since any input may come from a deny-listed
address): 0.21's `getblock` verbosity 2 does not carry prevouts (verbosity 3 came in 22.0), so they are looked up
with `getrawtransaction` of the inputs' txids, one batch per scan, for matching transactions only. That needs
`-txindex` for confirmed parents (the dev chain and tests run with it; `check()` requires it, since `transfers_of`
needs it too). "" (and left out of `from_addresses`) when the input spends a script without an address or an MWEB
output.

The mempool (`mempool_transfers`) gives the same transfers with block_number 0 and block_hash "". A transaction
replaced (BIP-125) or double-spent simply leaves the mempool: `mempool_txids()` and `status_of()` tell, and
`vanished()` (the seam's `MempoolReader`, with `mempool_transfers`) names those gone for the watcher.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from server.catalogue.catalogue import Asset, Network
from server.rails.base import ChainUnavailable, InvalidAddress, ScanResult, SeenTransfer
from server.rails.utxo.addresses import address_of, script_of
from server.rails.utxo.node import RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, NodeClient, RpcError
from server.rails.utxo.params import UtxoParams
from server.rails.utxo.units import to_base

GENESIS_PARENT = "0" * 64
# Blocks per HTTP request at verbosity 2: a full mainnet block is megabytes of JSON, so few at a time.
BLOCKS_PER_REQUEST = 4
HEADERS_PER_REQUEST = 500
TRANSACTIONS_PER_REQUEST = 200


@lru_cache(maxsize=1 << 20)
def _script_hex(hrp: str, address: str) -> str | None:
    """An address's scriptPubKey (hex), None when it is none of this network's. Every pass looks up every watched
    address: decoding bech32 in Python costs ~60 µs each, 6 s a pass at 100,000 addresses, so each is decoded once
    (an address's script never changes; a million entries are ~200 MB at most, and live sets are far smaller)."""
    try:
        return script_of(hrp, address).hex()
    except InvalidAddress:
        return None


@dataclass(frozen=True)
class _Output:
    n: int
    script: str  # hex
    value: int  # base units


@dataclass(frozen=True)
class _Tx:
    """What matching needs of a transaction: its outputs and the outpoints its inputs spend."""

    txid: str
    outputs: tuple[_Output, ...]
    inputs: tuple[tuple[str, int] | None, ...]  # in input order; None: an MWEB input (no outpoint to look up)
    coinbase: bool


@dataclass(frozen=True)
class TxStatus:
    """Where a transaction is now: in a block of the active chain (`mined`, with its height and hash), waiting in
    the mempool, or `absent` (never seen, replaced, double-spent, or evicted)."""

    state: Literal["mined", "mempool", "absent"]
    block_number: int = 0
    block_hash: str = ""
    confirmations: int = 0


class UtxoScanner:
    def __init__(self, network: Network, client: NodeClient) -> None:
        self.network = network.id
        self.params = UtxoParams.of(network)
        self.client = client
        self.asset: Asset | None = next((a for a in network.assets if not a.contract_address), None)
        self._mempool: dict[str, _Tx] = {}

    @classmethod
    def for_network(cls, network: Network) -> UtxoScanner:
        return cls(network, NodeClient(network.rpc_url))

    async def _call(self, method: str, *params: Any) -> Any:
        try:
            return await self.client.call(method, *params)
        except RpcError as e:
            raise ChainUnavailable(f"{self.network}: {e}") from e

    async def check(self) -> None:
        info = await self._call("getblockchaininfo")
        served = info.get("chain") if isinstance(info, dict) else None
        if served != self.params.chain:
            raise ChainUnavailable(f"{self.client.endpoint.shown} serves chain {served!r}, network {self.network} "
                                   f"is {self.params.chain!r}")
        indexes = await self._call("getindexinfo")
        if not isinstance(indexes, dict) or "txindex" not in indexes:
            raise ChainUnavailable(f"{self.client.endpoint.shown} runs without -txindex=1: network {self.network} "
                                   "needs it to look transactions up by id")

    async def close(self) -> None:
        await self.client.close()

    async def head(self) -> int:
        return int(await self._call("getblockcount"))

    async def block_hash(self, number: int) -> str | None:
        try:
            return str(await self.client.call("getblockhash", number))
        except RpcError as e:
            if e.code == RPC_INVALID_PARAMETER:  # "Block height out of range"
                return None
            raise ChainUnavailable(f"{self.network}: {e}") from e

    async def _batch(self, calls: Sequence[tuple[str, Sequence[Any]]], per_request: int) -> list[Any]:
        """Results in order; any refused call makes the whole answer unusable (ChainUnavailable)."""
        out: list[Any] = []
        for i in range(0, len(calls), per_request):
            for result in await self.client.batch(calls[i:i + per_request]):
                if isinstance(result, RpcError):
                    raise ChainUnavailable(f"{self.network}: {result}")
                out.append(result)
        return out

    async def scan(self, start: int, end: int, recipients: set[str]) -> ScanResult:
        numbers = list(range(start, end + 1))
        if not numbers:
            return ScanResult(start=start, end=end, parent_hash="")
        hashes_asked = await self._batch([("getblockhash", [n]) for n in numbers], HEADERS_PER_REQUEST)
        watched = self._watched(recipients)
        if watched:
            blocks = await self._batch([("getblock", [h, 2]) for h in hashes_asked], BLOCKS_PER_REQUEST)
        else:
            blocks = await self._batch([("getblockheader", [h, True]) for h in hashes_asked], HEADERS_PER_REQUEST)
        hashes: dict[int, str] = {}
        times: dict[int, int] = {}
        for n, asked, block in zip(numbers, hashes_asked, blocks, strict=True):
            if not isinstance(block, dict) or block.get("hash") != asked or block.get("height") != n:
                raise ChainUnavailable(f"{self.network}: block {n} is not the block asked for")
            # A block re-organised away between getblockhash and getblock is still served, with confirmations -1.
            if int(block.get("confirmations", 0)) < 1:
                raise ChainUnavailable(f"{self.network}: block {n} left the active chain during the scan")
            if n > start and block.get("previousblockhash") != hashes[n - 1]:
                raise ChainUnavailable(f"{self.network}: blocks {n - 1} and {n} are on different forks")
            hashes[n] = asked
            times[n] = int(block["time"])
        parent = str(blocks[0].get("previousblockhash", GENESIS_PARENT))
        transfers: list[SeenTransfer] = []
        if watched:
            found = [(n, hashes[n], _tx(raw, self._decimals)) for n, block in zip(numbers, blocks, strict=True)
                     for raw in block.get("tx", [])]
            transfers = await self._transfers(found, watched)
        return ScanResult(start=start, end=end, parent_hash=parent, hashes=hashes, transfers=transfers, times=times)

    @property
    def _decimals(self) -> int:
        return self.asset.decimals if self.asset is not None else 8

    def _watched(self, recipients: Iterable[str]) -> dict[str, str]:
        """scriptPubKey hex → the recipient's stored address. An entry that is not an address of this network cannot
        be paid on it and is left out, so one bad row cannot stop the watching of the others."""
        if self.asset is None:
            return {}
        out: dict[str, str] = {}
        for address in recipients:
            script = _script_hex(self.params.hrp, address)
            if script is not None:
                out[script] = address
        return out

    async def _transfers(self, found: Sequence[tuple[int, str, _Tx]], watched: dict[str, str]) -> list[SeenTransfer]:
        """The transfers of `found` transactions (block number, block hash, tx) to `watched` scripts."""
        assert self.asset is not None
        paying = [(n, h, tx, out) for n, h, tx in found if not tx.coinbase for out in tx.outputs
                  if out.script in watched]
        senders = await self._senders({o for _, _, tx, _ in paying for o in tx.inputs if o is not None})
        out: list[SeenTransfer] = []
        for n, h, tx, output in paying:
            names = [senders.get(o, "") if o is not None else "" for o in tx.inputs]
            out.append(SeenTransfer(tx_hash=tx.txid, log_index=output.n, block_number=n, block_hash=h,
                                    from_address=names[0] if names else "",
                                    from_addresses=tuple(dict.fromkeys(a for a in names if a)),
                                    to_address=watched[output.script], asset_id=self.asset.id,
                                    amount_base=output.value, decimals=self.asset.decimals))
        return out

    async def _senders(self, outpoints: set[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """The address each outpoint pays (the sender of a transaction spending it), "" where unknown."""
        parents = sorted({txid for txid, _ in outpoints})
        answers: list[Any] = []
        for i in range(0, len(parents), TRANSACTIONS_PER_REQUEST):
            answers += await self.client.batch([("getrawtransaction", [t, True])
                                                for t in parents[i:i + TRANSACTIONS_PER_REQUEST]])
        by_txid = {}
        for txid, answer in zip(parents, answers, strict=True):
            if isinstance(answer, RpcError):
                if answer.code != RPC_INVALID_ADDRESS_OR_KEY:  # an unknown parent only leaves the sender blank
                    raise ChainUnavailable(f"{self.network}: {answer}")
                continue
            by_txid[txid] = _tx(answer, self._decimals)
        out: dict[tuple[str, int], str] = {}
        for txid, vout in outpoints:
            parent = by_txid.get(txid)
            script = next((o.script for o in parent.outputs if o.n == vout), "") if parent else ""
            out[(txid, vout)] = address_of(self.params.hrp, bytes.fromhex(script)) if script else ""
        return out

    # ------------------------------------------------------------------------------------------------ the mempool

    async def mempool_txids(self) -> set[str]:
        """The txids in the node's mempool now: a transaction seen there earlier and absent now was mined, replaced,
        double-spent or evicted (`status_of` tells which)."""
        return {str(t) for t in await self._call("getrawmempool")}

    async def mempool_transfers(self, recipients: set[str]) -> list[SeenTransfer]:
        """The unconfirmed outputs paying `recipients`, block_number 0 and block_hash "". Each mempool transaction is
        fetched once and remembered while it stays there, so a poll costs only the new arrivals."""
        txids = await self.mempool_txids()
        self._mempool = {t: tx for t, tx in self._mempool.items() if t in txids}
        new = sorted(txids - self._mempool.keys())
        for i in range(0, len(new), TRANSACTIONS_PER_REQUEST):
            part = new[i:i + TRANSACTIONS_PER_REQUEST]
            for txid, answer in zip(part, await self.client.batch([("getrawtransaction", [t, True]) for t in part]),
                                    strict=True):
                if isinstance(answer, RpcError):
                    if answer.code != RPC_INVALID_ADDRESS_OR_KEY:
                        raise ChainUnavailable(f"{self.network}: {answer}")
                    continue  # it left the mempool since getrawmempool: the next poll sees where it went
                self._mempool[txid] = _tx(answer, self._decimals)
        watched = self._watched(recipients)
        if not watched:
            return []
        return await self._transfers([(0, "", tx) for tx in self._mempool.values()], watched)

    async def status_of(self, tx_hash: str) -> TxStatus:
        """Whether `tx_hash` is mined in the active chain, waiting in the mempool, or absent."""
        try:
            answer = await self.client.call("getrawtransaction", tx_hash, True)
        except RpcError as e:
            if e.code == RPC_INVALID_ADDRESS_OR_KEY:
                return TxStatus("absent")
            raise ChainUnavailable(f"{self.network}: {e}") from e
        block_hash = answer.get("blockhash")
        if not block_hash:
            return TxStatus("mempool")
        header = await self._call("getblockheader", block_hash, True)
        confirmations = int(header.get("confirmations", 0))
        if confirmations < 1:
            return TxStatus("absent")  # the txindex still names a block that was re-organised away
        return TxStatus("mined", int(header["height"]), str(block_hash), confirmations)

    async def vanished(self, tx_hashes: Collection[str]) -> set[str]:
        """`MempoolReader`: those of `tx_hashes` neither in the mempool nor mined in the active chain (replaced,
        double-spent, evicted). One lookup each: the watcher asks only about transfers it listed unmined whose
        transaction is no longer among the mempool's, a handful a pass."""
        return {t for t in sorted(set(tx_hashes)) if (await self.status_of(t)).state == "absent"}

    async def transfers_of(self, tx_hash: str, recipients: set[str]) -> tuple[list[SeenTransfer], int]:
        """`TransferLookup`: the outputs of one mined transaction to `recipients`, and the head; ([], head) when it
        is not in a block of the active chain."""
        status = await self.status_of(tx_hash)
        found: list[SeenTransfer] = []
        if status.state == "mined":
            answer = await self._call("getrawtransaction", tx_hash, True)
            tx = _tx(answer, self._decimals)
            found = await self._transfers([(status.block_number, status.block_hash, tx)], self._watched(recipients))
        return found, await self.head()


def _tx(raw: Any, decimals: int) -> _Tx:
    """The parts of a verbose transaction (getblock verbosity 2, getrawtransaction verbose) that matching needs."""
    if not isinstance(raw, dict) or not isinstance(raw.get("txid"), str):
        raise ChainUnavailable(f"not a transaction: {raw!r:.200}")
    outputs = []
    for vout in raw.get("vout", []):
        script = (vout.get("scriptPubKey") or {}).get("hex")
        if vout.get("ismweb") or not isinstance(script, str):
            continue
        outputs.append(_Output(n=int(vout["n"]), script=script.lower(), value=to_base(vout["value"], decimals)))
    vin = raw.get("vin") or [{}]
    inputs = tuple((str(v["txid"]), int(v["vout"])) if "txid" in v and "vout" in v and not v.get("ismweb") else None
                   for v in vin)
    return _Tx(txid=str(raw["txid"]), outputs=tuple(outputs), inputs=inputs, coinbase="coinbase" in vin[0])
