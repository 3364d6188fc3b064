"""A local Litecoin regtest node for `paygate devchain` and the tests, written into the networks file as LTC-TEST.

`start()` runs Debian's `litecoind -regtest` on loopback in its own data directory, with a random RPC password,
`-txindex` (the scanner looks parents up by txid) and `-mempoolreplacement=1` (0.21 refuses BIP-125 replacements
without it). It creates the legacy wallet `payer` (Debian's build has no SQLite, so no descriptor wallets), mines
101 blocks to it (100 for the first coinbase to mature, one spendable), and optionally mines a block every
`block_time` seconds from a thread. Every transaction waits for a block: regtest has no automine.

Litecoin quirk: MWEB activates on regtest at height 432 whatever `-vbparams` says, and the first MWEB block needs a
peg-in (without one `generatetoaddress` fails with bad-txns-vin-empty). `mine()` pegs 1 LTC of the payer's into MWEB
when it meets that, so a long-running dev chain keeps mining.
"""

from __future__ import annotations

import contextlib
import ctypes
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from server.rails.base import ChainUnavailable
from server.rails.evm.networks_file import upsert_network
from server.rails.utxo.node import BlockingNode, RpcError

NETWORK_ID = "LTC-TEST"
WALLET = "payer"
CONFIRMATIONS = 2
MATURE_BLOCKS = 101
START_SECONDS = 30
STOP_SECONDS = 15
RPC_USER = "paygate"
MWEB_PEG_IN = Decimal(1)
# Debian's binary itself: /usr/bin/litecoind is a wrapper script that writes ~/.litecoin before it starts it.
_BINARIES = ("/usr/lib/litecoin/litecoind",)


class DevChainError(Exception):
    """litecoind is missing, did not start, or the set-up failed; the message says which."""


def litecoind_binary() -> str:
    for candidate in _BINARIES:
        if Path(candidate).is_file():
            return candidate
    found = shutil.which("litecoind")
    if not found:
        raise DevChainError("litecoind not found: run `make litecoind` (Debian's package litecoind)")
    return found


def _die_with_parent() -> None:
    # Linux: the node gets SIGTERM when the process that started it dies, so no node outlives a crashed test run.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class UtxoDevChain:
    """A running regtest node with the funded wallet `payer`."""

    rpc_url: str
    datadir: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    owns_datadir: bool = False
    node: BlockingNode = field(init=False, repr=False)
    payer: BlockingNode = field(init=False, repr=False)
    mining_address: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _miner: threading.Thread | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.node = BlockingNode(self.rpc_url)
        self.payer = self.node.for_wallet(WALLET)

    @property
    def info(self) -> dict[str, Any]:
        """What `paygate devchain` prints of it (under "utxo")."""
        return {"rpc_url": self.rpc_url, "network": NETWORK_ID, "wallet": WALLET}

    def network_entry(self) -> dict[str, Any]:
        """The LTC-TEST entry of the networks file."""
        return {
            "id": NETWORK_ID, "display_name": "Litecoin (local regtest)", "family": "utxo", "chain_id": 0,
            "rpc_url": self.rpc_url, "confirmations": CONFIRMATIONS, "native_coin": "LTC",
            "assets": [{"coin": "LTC", "display_name": "Test Litecoin", "decimals": 8}],
            "hrp": "rltc", "coin_type": 1, "chain": "regtest", "uri_scheme": "litecoin", "fee_rate_floor": 1,
            "dust_relay_fee": 30000,
        }

    def call(self, method: str, *params: Any) -> Any:
        return self.node.call(method, *params)

    def height(self) -> int:
        return int(self.node.call("getblockcount"))

    def mine(self, blocks: int = 1, address: str | None = None) -> list[str]:
        """Mines `blocks` blocks (to the payer unless `address`) and returns their hashes."""
        to = address or self.mining_address
        with self._lock:
            start = self.height()
            target = start + blocks
            pegged = False
            while self.height() < target:
                try:
                    self.node.call("generatetoaddress", target - self.height(), to)
                except RpcError as e:
                    if "bad-txns-vin-empty" not in e.message or pegged:
                        raise
                    self._peg_in()
                    pegged = True
            return [str(self.node.call("getblockhash", n)) for n in range(start + 1, target + 1)]

    def _peg_in(self) -> None:
        mweb = self.payer.call("getnewaddress", "", "mweb")
        self.payer.call("sendtoaddress", mweb, MWEB_PEG_IN)

    def _mine_every(self, seconds: float) -> None:
        while not self._stop.wait(seconds):
            try:
                self.mine(1)
            except (ChainUnavailable, RpcError):
                if self._stop.is_set() or self.process.poll() is not None:
                    return  # the node is stopping

    def start_mining(self, seconds: float) -> None:
        if self._miner is None:
            self._miner = threading.Thread(target=self._mine_every, args=(seconds,), name="litecoind-miner",
                                           daemon=True)
            self._miner.start()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self._stop.set()
        if self._miner is not None:
            self._miner.join(timeout=STOP_SECONDS)
        if self.process.poll() is None:
            with contextlib.suppress(ChainUnavailable, RpcError):
                self.node.call("stop")
            # The node's HTTP server waits for open keep-alive connections before it exits: close ours first.
            self.payer.close()
            self.node.close()
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.payer.close()
        self.node.close()
        if self.owns_datadir:
            shutil.rmtree(self.datadir, ignore_errors=True)


def start(networks_file: Path | None, block_time: float | None = None, datadir: Path | None = None,
          port: int | None = None) -> UtxoDevChain:
    """Starts the node on 127.0.0.1:`port` (a free one by default) in `datadir` (a temporary one, removed by
    `stop()`, by default), funds the payer wallet, writes the LTC-TEST entry into `networks_file` (when given) and
    mines every `block_time` seconds (when given). The caller stops it."""
    owns = datadir is None
    data = Path(tempfile.mkdtemp(prefix="paygate-litecoind-")) if datadir is None else datadir
    data.mkdir(parents=True, exist_ok=True)
    rpc_port = port or _free_port()
    password = secrets.token_hex(16)
    args = [litecoind_binary(), "-regtest", "-server", "-txindex=1", "-fallbackfee=0.0002", "-mempoolreplacement=1",
            f"-datadir={data}", "-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1", f"-rpcport={rpc_port}",
            f"-rpcuser={RPC_USER}", f"-rpcpassword={password}", "-printtoconsole=0",
            # No peers: a test chain of its own, reachable only through RPC.
            f"-port={_free_port()}", "-listen=0", "-connect=0", "-dnsseed=0", "-discover=0", "-upnp=0",
            "-listenonion=0",
            # A legacy wallet draws 1000 keys ahead by default: 3 s of every start; the payer needs a few.
            "-keypool=20"]
    log = (data / "litecoind.out").open("wb")
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               preexec_fn=_die_with_parent)
    log.close()
    chain = UtxoDevChain(rpc_url=f"http://{RPC_USER}:{password}@127.0.0.1:{rpc_port}", datadir=data,
                         process=process, owns_datadir=owns)
    try:
        _wait_ready(chain)
        chain.call("createwallet", WALLET, False, False, "", False, False)
        chain.mining_address = str(chain.payer.call("getnewaddress", "", "bech32"))
        chain.mine(MATURE_BLOCKS)
        if networks_file is not None:
            upsert_network(networks_file, chain.network_entry())
        if block_time:
            chain.start_mining(block_time)
        return chain
    except BaseException:
        chain.stop()
        raise


def _wait_ready(chain: UtxoDevChain) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if chain.process.poll() is not None:
            raise DevChainError(f"litecoind exited with status {chain.process.returncode}{_log_tail(chain.datadir)}")
        with contextlib.suppress(ChainUnavailable):
            chain.call("getblockchaininfo")
            return
        time.sleep(0.05)
    raise DevChainError(f"litecoind did not answer on 127.0.0.1 within {START_SECONDS} s{_log_tail(chain.datadir)}")


def _log_tail(datadir: Path, limit: int = 2000) -> str:
    """What the node wrote before it died; the exit status alone does not tell why."""
    for path in (datadir / "regtest" / "debug.log", datadir / "litecoind.out"):
        if path.exists() and path.stat().st_size:
            text = path.read_bytes()[-limit:].decode("utf-8", "replace").strip()
            return f"; {path.name} ends:\n{text}"
    return "; it wrote nothing"
