"""What addresses hold, read from the node's UTXO set with `scantxoutset` (no node wallet, no index needed).

One `scantxoutset start ["addr(A)", "addr(B)", …]` call answers every address at once and exactly (each unspent
output with its amount). It reads the confirmed UTXO set at the tip: an unconfirmed payment is not counted yet and an
unconfirmed spend not deducted yet, which is what reconciliation against the ledger's confirmed postings wants.

A node runs one such scan at a time ("Scan already in progress"), and on mainnet a scan walks the whole UTXO set
(tens of seconds): retried briefly when busy, with a long timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from server.rails.base import ChainUnavailable
from server.rails.utxo.addresses import script_of
from server.rails.utxo.node import NodeBusy, NodeClient, RpcError
from server.rails.utxo.spend import Utxo
from server.rails.utxo.units import to_base

SCAN_TIMEOUT_SECONDS = 600.0
BUSY_RETRIES = 10
BUSY_WAIT_SECONDS = 0.3


async def _scan(client: NodeClient, addresses: Sequence[str]) -> dict[str, Any]:
    descriptors = [f"addr({a})" for a in dict.fromkeys(addresses)]
    for attempt in range(BUSY_RETRIES):
        try:
            answer = await client.call("scantxoutset", "start", descriptors, timeout=SCAN_TIMEOUT_SECONDS)
        except NodeBusy:
            if attempt == BUSY_RETRIES - 1:
                raise
            await asyncio.sleep(BUSY_WAIT_SECONDS)
            continue
        except RpcError as e:
            raise ChainUnavailable(f"{client.endpoint.shown}: {e}") from e
        if not isinstance(answer, dict) or answer.get("success") is not True:
            raise ChainUnavailable(f"{client.endpoint.shown}: scantxoutset did not finish: {answer!r:.200}")
        return answer
    raise AssertionError("unreachable")


async def utxos(client: NodeClient, hrp: str, addresses: Sequence[str], decimals: int = 8) -> list[Utxo]:
    """The confirmed unspent outputs paying `addresses` (stored form), each with its address and height."""
    if not addresses:
        return []
    by_script = {script_of(hrp, a).hex(): a for a in addresses}
    answer = await _scan(client, addresses)
    out = []
    for unspent in answer.get("unspents", []):
        address = by_script.get(str(unspent.get("scriptPubKey", "")).lower())
        if address is None:
            raise ChainUnavailable(f"{client.endpoint.shown}: scantxoutset returned an output of another script")
        out.append(Utxo(txid=str(unspent["txid"]), vout=int(unspent["vout"]),
                        value=to_base(unspent["amount"], decimals), address=address,
                        height=int(unspent.get("height", 0))))
    return sorted(out, key=lambda u: (u.height, u.txid, u.vout))


async def balances(client: NodeClient, hrp: str, addresses: Sequence[str], decimals: int = 8) -> list[int]:
    """What each of `addresses` holds in base units, in order (an address named twice is answered twice)."""
    held = dict.fromkeys(addresses, 0)
    for utxo in await utxos(client, hrp, list(held), decimals):
        held[utxo.address] += utxo.value
    return [held[a] for a in addresses]
