"""Whether each network's RPC answered recently: what makes its configured assets `payable` (DESIGN §12).

A probe is the network's rail family's own question to its node (`probe` in server/rails/registry.py; for EVM one
`eth_chainId` call with a short timeout, server/rails/evm/probe.py); its verdict is cached per network for TTL_SECONDS
and refreshed on the next read after that, all stale networks at once, so a dead node costs a reader at most one
probe's timeout once per TTL.

One `RpcHealth` per process, in the runtime (`rt.health`): the asset lists read it, and so does opening a payment
attempt (server/payment_intents/attempts.py), so an asset listed `payable: false` cannot be paid with either (the
spec: "only payable assets may be used to pay"). A transaction never probes: its servicer calls `answering()` first,
outside the transaction, and the transaction reads the verdicts with `payable()`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable

from server.catalogue.catalogue import Asset, Network

TTL_SECONDS = 30.0

Probe = Callable[[Network], Awaitable[bool]]


class RpcHealth:
    """The cached verdict of each network's RPC probe; networks without an rpc_url are never probed."""

    def __init__(self, networks: Iterable[Network], probe: Probe) -> None:
        self._networks = {n.id: n for n in networks if n.rpc_url}
        self._probe = probe
        self._answered: dict[str, tuple[bool, float]] = {}  # network id → (answered, monotonic time of the probe)
        self._lock = asyncio.Lock()

    async def answering(self) -> frozenset[str]:
        """The ids of the networks whose RPC answered within the last TTL_SECONDS (probing the stale ones now)."""
        if self._stale():
            async with self._lock:  # concurrent readers wait for one round of probes instead of each starting one
                stale = self._stale()
                if stale:
                    results = await asyncio.gather(*(self._probe(self._networks[i]) for i in stale))
                    now = time.monotonic()
                    self._answered.update({i: (ok, now) for i, ok in zip(stale, results, strict=True)})
        return frozenset(i for i, (ok, _) in self._answered.items() if ok)

    def _stale(self) -> list[str]:
        now = time.monotonic()
        return [i for i in self._networks if i not in self._answered or now - self._answered[i][1] >= TTL_SECONDS]

    def payable(self, asset: Asset) -> bool:
        """Whether `asset` may be paid with now: configured payable and, for a crypto asset, its network's RPC
        answered the last probe (never probed: not payable). No I/O: a caller refreshes with `answering()` first."""
        if not asset.payable or asset.is_fiat:
            return asset.payable
        seen = self._answered.get(asset.network)
        return seen is not None and seen[0]
