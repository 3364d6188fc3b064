"""`paygate devchain`: a local Anvil node with test USDT and USDC, written into the networks file.

Anvil comes from the npm package `@foundry-rs/anvil` (node_modules/), listens on 127.0.0.1 only, and uses its default
mnemonic, so the first deployer nonces give the same token addresses on every start. The first account deploys
the tokens (compiled from contracts/TestToken.sol at start) and mints 1,000,000 of each to every account.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from web3 import Web3
from web3.providers import HTTPProvider

from server.rails.evm.networks_file import upsert_network
from server.rails.evm.solidity import ROOT, Compiled, CompileError, compile_contract

NETWORK_ID = "ETH-TEST"
CONFIRMATIONS = 3
TOKENS = (("USDT", "Test Tether USD"), ("USDC", "Test USD Coin"))
TOKEN_DECIMALS = 6
MINT_PER_ACCOUNT = 1_000_000 * 10**TOKEN_DECIMALS
START_SECONDS = 20


class DevChainError(Exception):
    """Anvil is missing, did not start, or the deployment failed; the message says which."""


def anvil_binary() -> str:
    """The platform binary of the npm package (not its node launcher, so that signals reach Anvil itself)."""
    machine = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), platform.machine())
    system = {"linux": "linux", "darwin": "darwin"}.get(sys.platform, sys.platform)
    for candidate in (ROOT / "node_modules" / "@foundry-rs" / f"anvil-{system}-{machine}" / "bin" / "anvil",
                      ROOT / "node_modules" / ".bin" / "anvil"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which("anvil")
    if not found:
        raise DevChainError("anvil not found: run `npm install` (package.json lists @foundry-rs/anvil)")
    return found


def _die_with_parent() -> None:
    # Linux: Anvil gets SIGTERM when the process that started it dies, so no node outlives a crashed test run.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class DevChain:
    """A running Anvil with the test tokens deployed."""

    rpc_url: str
    chain_id: int
    tokens: dict[str, str]  # coin → checksum contract address
    accounts: list[dict[str, str]]  # {"address", "private_key"}
    abi: list[dict[str, Any]]
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def info(self) -> dict[str, Any]:
        """The JSON line `paygate devchain` prints."""
        return {"rpc_url": self.rpc_url, "chain_id": self.chain_id, "tokens": self.tokens, "accounts": self.accounts}

    def network_entry(self) -> dict[str, Any]:
        """The ETH-TEST entry of the networks file."""
        return {
            "id": NETWORK_ID, "display_name": "Ethereum (local test chain)", "chain_id": self.chain_id,
            "rpc_url": self.rpc_url, "confirmations": CONFIRMATIONS, "native_coin": "ETH",
            "assets": [{"coin": "ETH", "display_name": "Test Ether", "decimals": 18}] + [
                {"coin": coin, "display_name": name, "decimals": TOKEN_DECIMALS,
                 "contract_address": self.tokens[coin]} for coin, name in TOKENS],
        }

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(port: int = 8545, *, log_path: Path | None = None, block_time: float | None = None,
          compiled: Compiled | None = None) -> DevChain:
    """Starts Anvil on 127.0.0.1:`port`, deploys and mints the tokens, then (optionally) mines every `block_time`
    seconds. Until then every transaction is mined at once (automine), which is what tests want. `compiled`: the
    token already compiled (compiling takes seconds; tests that start many chains compile once)."""
    try:
        compiled = compiled or compile_contract()
    except CompileError as e:
        raise DevChainError(f"compiling contracts/TestToken.sol: {e}") from None
    with tempfile.TemporaryDirectory(prefix="paygate-anvil-") as tmp:
        return _start(port, compiled, Path(tmp) / "anvil.json", log_path, block_time)


def _start(port: int, compiled: Compiled, config_out: Path, log_path: Path | None,
           block_time: float | None) -> DevChain:
    log = log_path.open("wb") if log_path else subprocess.DEVNULL
    process = subprocess.Popen(
        [anvil_binary(), "--host", "127.0.0.1", "--port", str(port), "--config-out", str(config_out)],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
    rpc_url = f"http://127.0.0.1:{port}"
    try:
        w3 = _wait_ready(process, rpc_url, config_out, log_path)
        keys = json.loads(config_out.read_text())
        accounts = [{"address": Web3.to_checksum_address(a), "private_key": k}
                    for a, k in zip(keys["available_accounts"], keys["private_keys"], strict=True)]
        tokens = _deploy(w3, compiled.abi, compiled.bytecode, [a["address"] for a in accounts])
        if block_time:
            # Anvil takes whole seconds here and answers an error object (which web3 does not raise) for 2.0.
            reply = w3.provider.make_request("evm_setIntervalMining", [max(1, round(block_time))])  # type: ignore[arg-type]
            if "error" in reply:
                raise RuntimeError(f"anvil refused interval mining: {reply['error']}")
        return DevChain(rpc_url=rpc_url, chain_id=w3.eth.chain_id, tokens=tokens, accounts=accounts,
                        abi=compiled.abi, process=process)
    except BaseException:
        process.terminate()
        process.wait()
        raise


def _wait_ready(process: subprocess.Popen[bytes], rpc_url: str, config_out: Path, log_path: Path | None) -> Web3:
    w3 = Web3(HTTPProvider(rpc_url, request_kwargs={"timeout": 5}))
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise DevChainError(f"anvil exited with status {process.returncode} on {rpc_url}{_log_tail(log_path)}")
        if config_out.exists():
            with contextlib.suppress(Exception):
                w3.eth.chain_id  # noqa: B018 - the first answer means Anvil is serving
                return w3
        time.sleep(0.05)
    raise DevChainError(f"anvil did not answer on {rpc_url} within {START_SECONDS} s")


def _log_tail(log_path: Path | None, limit: int = 2000) -> str:
    """What Anvil printed before it died; the exit status alone (an abort, say) does not tell why."""
    if log_path is None or not log_path.exists():
        return ""
    text = log_path.read_bytes()[-limit:].decode("utf-8", "replace").strip()
    return f"; it printed:\n{text}" if text else "; it printed nothing"


def _deploy(w3: Web3, abi: list[dict[str, Any]], bytecode: str, holders: list[str]) -> dict[str, str]:
    deployer = holders[0]  # an unlocked dev account: Anvil signs eth_sendTransaction itself
    tokens: dict[str, str] = {}
    for coin, name in TOKENS:
        tx = w3.eth.contract(abi=abi, bytecode=bytecode).constructor(name, coin, TOKEN_DECIMALS).transact(
            {"from": deployer})
        receipt = w3.eth.wait_for_transaction_receipt(tx, timeout=30)
        if receipt["status"] != 1 or not receipt["contractAddress"]:
            raise DevChainError(f"deploying {coin} failed")
        tokens[coin] = receipt["contractAddress"]
    pending = []
    for address in tokens.values():
        token = w3.eth.contract(address=address, abi=abi)  # type: ignore[call-overload]
        pending += [token.functions.mint(h, MINT_PER_ACCOUNT).transact({"from": deployer}) for h in holders]
    for tx in pending:
        if w3.eth.wait_for_transaction_receipt(tx, timeout=30)["status"] != 1:
            raise DevChainError("minting the test tokens failed")
    return tokens


def start_dev(port: int, networks_file: Path, block_time: float | None) -> DevChain:
    """`paygate devchain`'s EVM chain: started, its ETH-TEST entry written (`Family.devchain`)."""
    chain = start(port, log_path=networks_file.with_name(f"anvil-{port}.log"), block_time=block_time)
    try:
        upsert_network(networks_file, chain.network_entry())
    except BaseException:
        chain.stop()
        raise
    return chain
