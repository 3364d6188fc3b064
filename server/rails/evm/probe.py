"""Whether an EVM network's RPC answers: one `eth_chainId` call with a short timeout (`server/catalogue/health.py`
caches the verdict; it is what makes the network's assets payable, DESIGN §12). An error, a timeout or another
chain's id counts as not answering."""

from __future__ import annotations

import httpx

from server.catalogue.catalogue import Network
from server.tls import client_context

TIMEOUT_SECONDS = 2.0


async def answers(network: Network) -> bool:
    try:
        # trust_env=False: the node is the operator's; a proxy from the environment is not on its path.
        async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, trust_env=False, verify=client_context()) as client:
            response = await client.post(network.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId",
                                                                "params": []})
        answer = response.json().get("result") if response.status_code == 200 else None
        return isinstance(answer, str) and (not network.chain_id or int(answer, 16) == network.chain_id)
    except (httpx.HTTPError, ValueError, AttributeError):
        return False
