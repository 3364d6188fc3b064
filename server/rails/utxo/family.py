"""The Bitcoin family as the registry knows it (`FAMILY`, chain family "utxo").

A UTXO network's addresses depend on its own hrp and coin type (its `params`): `keys_for(network)` gives each
network's scheme (`Family.keys_for`, asked by server/rails/registry.py `key_scheme`); `FAMILY.keys` is Litecoin
regtest's ("rltc", coin type 1, the dev chain's).
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path

from server.catalogue.catalogue import Catalogue, Network
from server.config import Settings
from server.db import Database
from server.rails.base import ChainScanner, DevChain, DevChainFailed, Family, Rail
from server.rails.utxo import probe
from server.rails.utxo.derivation import UtxoKeys
from server.rails.utxo.params import UtxoParams

DEFAULT_HRP = "rltc"
DEFAULT_COIN_TYPE = 1


def keys_for(network: Network) -> UtxoKeys:
    params = UtxoParams.of(network)
    return UtxoKeys(params.hrp, params.coin_type)


def _rail(network: Network, catalogue: Catalogue, db: Database, settings: Settings) -> Rail:
    from server.rails.utxo.rail import UtxoRail

    return UtxoRail.build(network, catalogue, db, settings)


def _scanner(network: Network) -> ChainScanner:
    from server.rails.utxo.scanner import UtxoScanner

    return UtxoScanner.for_network(network)


def _probe(network: Network) -> Awaitable[bool]:
    return probe.answers(network)


def _devchain(port: int, networks_file: Path, block_time: float | None) -> DevChain:
    # Its own free RPC port: `port` is the EVM chain's (the one a wallet or a test is pointed at).
    from server.rails.utxo import devchain

    try:
        return devchain.start(networks_file, block_time=block_time)
    except devchain.DevChainError as e:
        raise DevChainFailed(f"utxo: {e}") from None


FAMILY = Family(rail=_rail, scanner=_scanner, probe=_probe, keys=UtxoKeys(DEFAULT_HRP, DEFAULT_COIN_TYPE),
                keys_for=keys_for, devchain=_devchain)
