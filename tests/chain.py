"""A real dev chain for tests: Anvil started through `paygate devchain`'s code on a free port, with the test tokens.

Import the `chain` fixture into a conftest.py (`from tests.chain import chain  # noqa: F401`). Transactions are signed
locally with the funded accounts' keys, so a test can keep a signed transaction and send it again after a
re-organisation dropped it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.signers.local import LocalAccount
from web3 import Web3
from web3.contract import Contract
from web3.providers import HTTPProvider

from server.rails.evm import devchain
from server.rails.evm.networks_file import upsert_network
from tests.harness import compiled_token, free_port


@dataclass(frozen=True)
class Sent:
    tx_hash: str  # 0x…
    raw: bytes  # the signed transaction, to send again after a re-organisation
    block_number: int


@dataclass
class Chain:
    dev: devchain.DevChain
    networks_file: Path
    w3: Web3 = field(init=False)
    tokens: dict[str, Contract] = field(init=False)
    accounts: list[LocalAccount] = field(init=False)

    def __post_init__(self) -> None:
        self.w3 = Web3(HTTPProvider(self.dev.rpc_url, request_kwargs={"timeout": 30}))
        self.tokens = {coin: self.w3.eth.contract(address=addr, abi=self.dev.abi)  # type: ignore[call-overload]
                       for coin, addr in self.dev.tokens.items()}
        self.accounts = [Account.from_key(a["private_key"]) for a in self.dev.accounts]

    def head(self) -> int:
        return int(self.w3.eth.block_number)

    def mine(self, blocks: int = 1) -> None:
        self.w3.provider.make_request("anvil_mine", [blocks])  # type: ignore[arg-type]

    def snapshot(self) -> str:
        return str(self.w3.provider.make_request("evm_snapshot", [])["result"])  # type: ignore[arg-type]

    def revert(self, snapshot_id: str) -> None:
        assert self.w3.provider.make_request("evm_revert", [snapshot_id])["result"] is True  # type: ignore[arg-type]

    def send_eth(self, sender: int, to: str, wei: int) -> Sent:
        return self._send(sender, {"to": Web3.to_checksum_address(to), "value": wei, "gas": 21_000})

    def send_token(self, coin: str, sender: int, to: str, amount: int) -> Sent:
        call = self.tokens[coin].functions.transfer(Web3.to_checksum_address(to), amount)
        return self._send(sender, call.build_transaction({"from": self.accounts[sender].address, "gas": 100_000}))

    def send_raw(self, raw: bytes) -> Sent:
        tx_hash = self.w3.eth.send_raw_transaction(raw)
        receipt = self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
        return Sent(tx_hash.to_0x_hex(), raw, receipt["blockNumber"])

    def sign_eth(self, sender: int, to: str, wei: int) -> bytes:
        """A signed native transfer that is not sent: to put into a block by hand (a re-organisation's replacement)."""
        return self._sign(sender, {"to": Web3.to_checksum_address(to), "value": wei, "gas": 21_000})

    def _send(self, sender: int, tx: dict[str, Any]) -> Sent:
        return self.send_raw(self._sign(sender, tx))

    def _sign(self, sender: int, tx: dict[str, Any]) -> bytes:
        account = self.accounts[sender]
        tx = {**tx, "from": account.address, "chainId": self.dev.chain_id,
              "nonce": self.w3.eth.get_transaction_count(account.address, "pending"),
              "maxFeePerGas": 10 * 10**9, "maxPriorityFeePerGas": 10**9}
        return bytes(account.sign_transaction(tx).raw_transaction)


def _start_devchain(workdir: Path, attempts: int = 3) -> devchain.DevChain:
    """A fresh port per attempt: under a loaded CI machine Anvil has aborted at start-up once (status -6) with a whole
    worker's chain tests failing at setup; the failure of the last attempt, with Anvil's own output, is raised."""
    for attempt in range(1, attempts + 1):
        try:
            return devchain.start(free_port(), log_path=workdir / f"anvil-{attempt}.log", compiled=compiled_token())
        except devchain.DevChainError as e:
            if attempt == attempts:
                raise
            print(f"anvil start attempt {attempt} failed, retrying: {e}", file=sys.stderr)
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chain]:
    workdir = Path(tmp_path_factory.mktemp("devchain"))
    dev = _start_devchain(workdir)
    networks_file = workdir / "networks.toml"
    upsert_network(networks_file, dev.network_entry())
    try:
        yield Chain(dev, networks_file)
    finally:
        dev.stop()
