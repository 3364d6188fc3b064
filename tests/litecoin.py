"""A real `litecoind -regtest` for the tests, started through the dev chain's own code (server/rails/utxo/
devchain.py): one node per pytest-xdist worker, in the worker's temporary directory, on a free port, stopped when the
session ends. Nothing is mined unless a test mines (no block timer), so each test decides when blocks come.

Import the `litecoin` fixture into a conftest.py (`from tests.litecoin import litecoin  # noqa: F401`)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import pytest

from server.catalogue.catalogue import Network, load
from server.rails.utxo import devchain
from server.rails.utxo.derivation import UtxoKeys
from server.rails.utxo.node import NodeClient
from server.rails.utxo.scanner import UtxoScanner
from tests.harness import free_port

T = TypeVar("T")
MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@dataclass
class Litecoin:
    dev: devchain.UtxoDevChain
    networks_file: Path

    @property
    def network(self) -> Network:
        return load(self.networks_file).networks[devchain.NETWORK_ID]

    @property
    def keys(self) -> UtxoKeys:
        return UtxoKeys("rltc", 1)

    def scanner(self) -> UtxoScanner:
        return UtxoScanner.for_network(self.network)

    def client(self) -> NodeClient:
        return NodeClient(self.dev.rpc_url)

    def call(self, method: str, *params: Any) -> Any:
        return self.dev.call(method, *params)

    def wallet(self, method: str, *params: Any) -> Any:
        """A call to the payer wallet (sendtoaddress, sendmany, bumpfee, …)."""
        return self.dev.payer.call(method, *params)

    def pay(self, address: str, amount: Decimal, **options: Any) -> str:
        """The payer sends `amount` LTC to `address`; its txid (in the mempool until a block is mined)."""
        replaceable = options.get("replaceable", False)
        return str(self.wallet("sendtoaddress", address, amount, "", "", False, replaceable))

    def funded_wallet(self, name: str, amount: Decimal) -> str:
        """A second legacy wallet `name` holding `amount` at one address (its coins never mix into the payer's
        spends), and that address."""
        self.call("createwallet", name, False, False, "", False, False)
        address = str(self.dev.node.for_wallet(name).call("getnewaddress", "", "bech32"))
        self.pay(address, amount)
        self.mine(1)
        return address

    def pay_from(self, wallet: str, source: str, address: str, amount: Decimal,
                 fee: Decimal = Decimal("0.0001")) -> str:
        """Wallet `wallet` sends `amount` to `address` spending only its coins at `source`, the rest back to `source`:
        the transaction's first input is `source`'s, so paygate sees `source` as its sender."""
        node = self.dev.node.for_wallet(wallet)
        coins = node.call("listunspent", 1, 9_999_999, [source])
        assert coins, f"{wallet} holds nothing at {source}"
        coin = max(coins, key=lambda c: Decimal(str(c["amount"])))
        change = Decimal(str(coin["amount"])) - amount - fee
        outputs = [{address: str(amount)}] + ([{source: str(change)}] if change > 0 else [])
        raw = self.call("createrawtransaction", [{"txid": coin["txid"], "vout": coin["vout"]}], outputs, 0, True)
        signed = node.call("signrawtransactionwithwallet", raw)
        assert signed["complete"], signed
        return str(self.call("sendrawtransaction", signed["hex"]))

    def pay_from_many(self, sources: Sequence[tuple[str, str]], address: str, amount: Decimal,
                      fee: Decimal = Decimal("0.0001")) -> str:
        """One transaction paying `amount` to `address` whose inputs are, in order, the largest confirmed coin of
        each (wallet, source address) in `sources` (distinct addresses): each source pays an equal share (the first
        also the fee) and gets its change back, so every source keeps coins to pay from later. Each wallet signs its
        own input (signrawtransactionwithwallet on the partly signed transaction), so the inputs' senders are
        exactly the sources, in that order."""
        coins = []
        for wallet, source in sources:
            held = self.dev.node.for_wallet(wallet).call("listunspent", 1, 9_999_999, [source])
            assert held, f"{wallet} holds nothing at {source}"
            coins.append(max(held, key=lambda c: Decimal(str(c["amount"]))))
        share = (amount / len(sources)).quantize(Decimal("0.00000001"))
        shares = [amount - share * (len(sources) - 1) + fee] + [share] * (len(sources) - 1)
        outputs = [{address: str(amount)}]
        for (_, source), coin, paid in zip(sources, coins, shares, strict=True):
            change = Decimal(str(coin["amount"])) - paid
            assert change > 0, f"{source} holds too little for its share {paid}"
            outputs.append({source: str(change)})
        raw = self.call("createrawtransaction", [{"txid": c["txid"], "vout": c["vout"]} for c in coins], outputs,
                        0, True)
        for wallet in dict.fromkeys(w for w, _ in sources):
            signed = self.dev.node.for_wallet(wallet).call("signrawtransactionwithwallet", raw)
            raw = signed["hex"]
        assert signed["complete"], signed
        return str(self.call("sendrawtransaction", raw))

    def replace(self, txid: str, to: str, fee: Decimal = Decimal("0.001")) -> str:
        """A conflicting transaction (BIP-125) spending every input of the mempool transaction `txid` to `to` alone,
        at a higher fee: `txid` leaves the mempool and can never be mined."""
        tx = self.call("getrawtransaction", txid, True)
        total = Decimal(0)
        for vin in tx["vin"]:
            prev = self.call("getrawtransaction", vin["txid"], True)
            total += Decimal(str(prev["vout"][vin["vout"]]["value"]))
        inputs = [{"txid": v["txid"], "vout": v["vout"]} for v in tx["vin"]]
        raw = self.call("createrawtransaction", inputs, [{to: str(total - fee)}], 0, True)
        signed = self.wallet("signrawtransactionwithwallet", raw)
        assert signed["complete"], signed
        return str(self.call("sendrawtransaction", signed["hex"]))

    def mine(self, blocks: int = 1) -> list[str]:
        return self.dev.mine(blocks)

    def head(self) -> int:
        return self.dev.height()


def _start(workdir: Path, networks_file: Path, attempts: int = 3) -> devchain.UtxoDevChain:
    """A fresh port per attempt: another process may take a free port between the check and litecoind's bind."""
    for attempt in range(1, attempts + 1):
        try:
            return devchain.start(networks_file, datadir=workdir / f"node-{attempt}", port=free_port())
        except devchain.DevChainError as e:
            if attempt == attempts:
                raise
            print(f"litecoind start attempt {attempt} failed, retrying: {e}", file=sys.stderr)
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def litecoin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Litecoin]:
    workdir = Path(tmp_path_factory.mktemp("litecoind"))
    networks_file = workdir / "networks.toml"
    dev = _start(workdir, networks_file)
    try:
        yield Litecoin(dev, networks_file)
    finally:
        dev.stop()


_accounts = iter(range(1000, 1_000_000))


@pytest.fixture
def account() -> int:
    """A BIP-84 account no other test of this worker's session uses, so its addresses start empty."""
    return next(_accounts)
