"""The EVM family as the registry knows it (`FAMILY`). The rail and the scanner import web3 when first built, so a
command that only derives addresses (`paygate merchants create`) does not pay for loading it."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path

from server.catalogue.catalogue import Catalogue, Network
from server.config import Settings
from server.db import Database
from server.rails.base import ChainScanner, DevChain, DevChainFailed, Family, Rail
from server.rails.evm import probe
from server.rails.evm.derivation import EvmKeys


def _rail(network: Network, catalogue: Catalogue, db: Database, settings: Settings) -> Rail:
    from server.rails.evm.rail import EvmRail

    return EvmRail.build(network, catalogue, db, settings)


def _scanner(network: Network) -> ChainScanner:
    from server.rails.evm.scanner import EvmScanner

    return EvmScanner.for_network(network)


def _probe(network: Network) -> Awaitable[bool]:
    return probe.answers(network)


def _devchain(port: int, networks_file: Path, block_time: float | None) -> DevChain:
    from server.rails.evm import devchain

    try:
        return devchain.start_dev(port, networks_file, block_time)
    except devchain.DevChainError as e:
        raise DevChainFailed(f"evm: {e}") from None


FAMILY = Family(rail=_rail, scanner=_scanner, probe=_probe, keys=EvmKeys(), devchain=_devchain)
