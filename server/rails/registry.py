"""One chain rail per network of the catalogue that has a JSON-RPC endpoint."""

from __future__ import annotations

from collections.abc import Callable

from server.assets.catalogue import Catalogue, Network
from server.rails.base import ChainScanner
from server.rails.evm.scanner import EvmScanner

# Rail by chain family. Networks carry no family yet: every network in the catalogue is EVM.
RAILS: dict[str, Callable[[Network], ChainScanner]] = {"evm": EvmScanner.for_network}


def chain_scanners(catalogue: Catalogue) -> dict[str, ChainScanner]:
    """A scanner for each network that can be watched (one with an rpc_url)."""
    return {net.id: RAILS["evm"](net) for net in catalogue.networks.values() if net.rpc_url}
