"""The dev chain itself, each test on a node of its own: its networks-file entry, its block timer, and mining on
past Litecoin's MWEB activation height."""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path

from server.catalogue.catalogue import load
from server.rails.utxo import devchain
from server.rails.utxo.derivation import UtxoKeys
from server.rails.utxo.scanner import UtxoScanner
from tests.harness import free_port
from tests.litecoin import MNEMONIC, run


def test_the_dev_chain_writes_its_network_and_mines_every_block_time_until_stopped(tmp_path: Path) -> None:
    networks_file = tmp_path / "networks.toml"
    chain = devchain.start(networks_file, block_time=0.2, port=free_port())
    try:
        assert chain.info == {"rpc_url": chain.rpc_url, "network": "LTC-TEST", "wallet": "payer"}
        network = load(networks_file).networks["LTC-TEST"]
        assert (network.family, network.chain_id, network.rpc_url, network.confirmations) == (
            "utxo", 0, chain.rpc_url, 2)
        assert (network.params["hrp"], network.params["coin_type"]) == ("rltc", 1)
        assert [(a.id, a.decimals, a.payable) for a in network.assets] == [("LTC-LTC-TEST", 8, True)]
        deadline = time.monotonic() + 10
        while chain.height() < devchain.MATURE_BLOCKS + 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert chain.height() >= devchain.MATURE_BLOCKS + 3
        assert chain.payer.call("getbalance") > 0
    finally:
        chain.stop()
    assert chain.process.poll() is not None
    assert not chain.datadir.exists()  # a temporary datadir is the chain's own


def test_mining_past_the_mweb_activation_height_keeps_the_chain_and_the_scanner_working(tmp_path: Path) -> None:
    networks_file = tmp_path / "networks.toml"
    chain = devchain.start(networks_file, datadir=tmp_path / "node", port=free_port())
    address = UtxoKeys("rltc", 1).deposit_address(MNEMONIC, 7, 0)
    try:
        chain.mine(440 - chain.height())  # regtest activates MWEB at 432; its first block needs a peg-in
        assert chain.height() == 440
        assert chain.call("getblockchaininfo")["softforks"]["mweb"]["active"] is True
        txid = chain.payer.call("sendtoaddress", address, Decimal("0.25"))
        chain.mine()

        async def scenario() -> None:
            scanner = UtxoScanner.for_network(load(networks_file).networks["LTC-TEST"])
            result = await scanner.scan(432, 441, {address})
            assert [(t.tx_hash, t.block_number, t.amount_base) for t in result.transfers] == [(txid, 441, 25_000_000)]
            await scanner.close()

        run(scenario())
    finally:
        chain.stop()
    assert (tmp_path / "node").exists()  # a datadir the caller gave is left to the caller
