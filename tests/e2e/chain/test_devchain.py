"""`paygate devchain`: Anvil with the test tokens and litecoind -regtest with a funded `payer` wallet, the ETH-TEST
and LTC-TEST networks in the networks file, one JSON line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from web3 import Web3
from web3.providers import HTTPProvider

from server.catalogue.catalogue import load
from server.rails.evm.devchain import MINT_PER_ACCOUNT
from tests.harness import TLS, free_port

ROOT = Path(__file__).resolve().parents[3]
OTHER_NETWORK = """[[networks]]
id = "ARBITRUM"
chain_id = 42161
native_coin = "ETH"
rpc_url = "https://arb.invalid"
assets = [{ coin = "ETH", decimals = 18 }]
"""


def start_devchain(networks_file: Path, *more: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "server.boot.cli", "devchain", "--port", str(free_port()), "--networks-file",
         str(networks_file), *more], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, process.stderr.read() if process.stderr else ""
    return process, json.loads(line)


def stop_devchain(process: subprocess.Popen[str]) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=20)


@pytest.fixture(scope="module")
def devchain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Any], Path]]:
    networks_file = Path(tmp_path_factory.mktemp("devchain-cli")) / "networks.toml"
    networks_file.write_text(OTHER_NETWORK)
    process, info = start_devchain(networks_file)
    yield info, networks_file
    stop_devchain(process)
    assert process.stdout is not None and process.stdout.read() == "", "devchain printed more than one line"


def test_devchain_prints_one_json_line_with_rpc_url_chain_id_tokens_and_accounts(devchain):
    info, _ = devchain
    assert set(info) == {"rpc_url", "chain_id", "tokens", "accounts", "utxo"}
    assert info["rpc_url"].startswith("http://127.0.0.1:") and info["chain_id"] == 31337
    assert set(info["tokens"]) == {"USDT", "USDC"}
    assert all(Web3.is_checksum_address(a) for a in info["tokens"].values())
    assert info["accounts"] and all(set(a) == {"address", "private_key"} for a in info["accounts"])


def test_devchain_runs_litecoin_regtest_with_a_funded_payer_wallet(devchain):
    info, networks_file = devchain
    utxo = info["utxo"]
    assert (utxo["network"], utxo["wallet"]) == ("LTC-TEST", "payer")
    assert urlsplit(utxo["rpc_url"]).hostname == "127.0.0.1"
    answer = httpx.post(utxo["rpc_url"] + "/wallet/payer", json={"jsonrpc": "1.0", "id": 1, "method": "getbalance",
                                                                "params": []})
    assert answer.json()["result"] > 0  # 101 blocks mined to it: the first coinbase is mature
    network = load(networks_file).networks["LTC-TEST"]
    assert (network.family, network.chain_id, network.params["hrp"]) == ("utxo", 0, "rltc")
    assert [a.id for a in network.assets] == ["LTC-LTC-TEST"]


def test_devchain_of_one_family_runs_only_that_chain(tmp_path: Path) -> None:
    process, info = start_devchain(tmp_path / "networks.toml", "--families", "evm")
    assert stop_devchain(process) == 0
    assert "utxo" not in info
    assert set(load(tmp_path / "networks.toml").networks) >= {"ETH-TEST"}
    assert "LTC-TEST" not in load(tmp_path / "networks.toml").networks


def test_devchain_refuses_an_unknown_family(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "server.boot.cli", "devchain", "--networks-file",
                           str(tmp_path / "n.toml"), "--families", "evm,solana"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "--families 'evm,solana'" in done.stderr, done.stderr


def test_devchain_answers_json_rpc_on_loopback(devchain):
    info, _ = devchain
    answer = httpx.post(info["rpc_url"], json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
                        verify=TLS)
    assert int(answer.json()["result"], 16) == info["chain_id"]


def test_devchain_writes_the_eth_test_network_into_the_networks_file(devchain):
    info, networks_file = devchain
    network = load(networks_file).networks["ETH-TEST"]
    assert (network.chain_id, network.rpc_url) == (info["chain_id"], info["rpc_url"])
    assert network.confirmations >= 1
    assets = {a.id: a for a in network.assets}
    assert set(assets) == {"ETH-ETH-TEST", "USDT-ETH-TEST", "USDC-ETH-TEST"}
    assert assets["ETH-ETH-TEST"].decimals == 18 and assets["ETH-ETH-TEST"].contract_address == ""
    for coin in ("USDT", "USDC"):
        asset = assets[f"{coin}-ETH-TEST"]
        assert (asset.decimals, asset.contract_address, asset.payable) == (6, info["tokens"][coin], True)


def test_devchain_keeps_the_other_networks_of_the_file(devchain):
    _, networks_file = devchain
    assert load(networks_file).networks["ARBITRUM"].rpc_url == "https://arb.invalid"


def test_devchain_accounts_hold_test_eth_usdt_and_usdc(devchain):
    info, _ = devchain
    w3 = Web3(HTTPProvider(info["rpc_url"]))
    abi = [{"name": "balanceOf", "type": "function", "stateMutability": "view",
            "inputs": [{"name": "a", "type": "address"}], "outputs": [{"name": "", "type": "uint256"}]}]
    for account in info["accounts"]:
        assert w3.eth.get_balance(account["address"]) > 10**18
        for token in info["tokens"].values():
            contract = w3.eth.contract(address=token, abi=abi)
            assert contract.functions.balanceOf(account["address"]).call() == MINT_PER_ACCOUNT
    assert w3.eth.account.from_key(info["accounts"][1]["private_key"]).address == info["accounts"][1]["address"]


def test_devchain_stops_anvil_on_sigterm(tmp_path: Path):
    process, info = start_devchain(tmp_path / "networks.toml")
    assert stop_devchain(process) == 0
    with pytest.raises(httpx.HTTPError):
        httpx.post(info["rpc_url"], json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
                   timeout=2, verify=TLS)


def test_devchain_with_a_block_time_mines_blocks_on_its_own(tmp_path: Path) -> None:
    from server.rails.evm import devchain as dev

    chain = dev.start(free_port(), log_path=tmp_path / "anvil.log", block_time=1)
    try:
        w3 = Web3(HTTPProvider(chain.rpc_url))
        first = w3.eth.block_number
        deadline = time.monotonic() + 10
        while w3.eth.block_number < first + 2:
            assert time.monotonic() < deadline, "no block was mined on the interval"
            time.sleep(0.2)
    finally:
        chain.stop()
