"""Whether a UTXO network's node answers: one `getblockchaininfo` with a short timeout (`server/catalogue/health.py`
caches the verdict; it is what makes the network's assets payable, DESIGN §12). An error, a timeout, wrong
credentials, or a node serving another chain than the network's counts as not answering."""

from __future__ import annotations

from server.catalogue.catalogue import CatalogueError, Network
from server.rails.base import ChainUnavailable
from server.rails.utxo.node import NodeClient, RpcError
from server.rails.utxo.params import UtxoParams

TIMEOUT_SECONDS = 2.0


async def answers(network: Network) -> bool:
    try:
        chain = UtxoParams.of(network).chain
    except CatalogueError:
        return False
    async with NodeClient(network.rpc_url, timeout=TIMEOUT_SECONDS) as client:
        try:
            info = await client.call("getblockchaininfo")
        except (ChainUnavailable, RpcError):
            return False
    return isinstance(info, dict) and info.get("chain") == chain
