"""Reconciliation (DESIGN §15): what each deposit address and each treasury holds on chain, per asset, against what
the ledger says sits there. A difference is drift: reported (a warning log line per place and asset, and
`paygate treasury reconcile` for the operator), never corrected: the ledger is only ever written by its causes.

What counts as "at an address" in the ledger: every leg whose `address` is that address, whatever its account
(pending, available, locked, frozen, and the processing fees, which physically stay there until swept); inflow and
outflow are the world outside. Funds the ledger cannot know (sent to the treasury by hand, e.g. gas for token sweeps)
are drift by definition, and so is a movement between its mining and its confirmation (the chain has moved, the
ledger posts at the confirmation depth): a drift that lasts is the one to look at.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from sqlmodel import col, select

from server.db.aggregates import exact_sum
from server.payment_intents.totals import text
from server.rails.base import ChainUnavailable
from server.rails.registry import key_scheme
from server.treasury.env import TreasuryEnv
from server.treasury.ledger.models import LedgerEntry
from server.wallet.models import WalletAccount

log = logging.getLogger("paygate.treasury.reconcile")
ZERO = Decimal(0)


def interval_seconds() -> float:
    """How often the job runs (`PAYGATE_RECONCILE_SECONDS`, default 300 s)."""
    try:
        return max(1.0, float(os.environ.get("PAYGATE_RECONCILE_SECONDS", "300")))
    except ValueError:
        return 300.0


@dataclass(frozen=True)
class Line:
    """One place and asset: what the ledger says, what the chain holds, in the asset's units."""

    network: str
    address: str
    asset_id: str
    role: str  # "treasury" or "deposit"
    ledger: Decimal
    chain: Decimal

    @property
    def drift(self) -> Decimal:
        return self.chain - self.ledger


async def _ledger(rt: TreasuryEnv) -> dict[tuple[str, str], dict[str, Decimal]]:
    """(network, address) → asset id → the sum of the legs there: one SQL SUM … GROUP BY, exact on both databases."""
    sums: dict[tuple[str, str], dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    async with rt.db.read() as session:
        rows = await session.exec(select(col(LedgerEntry.network), col(LedgerEntry.address),
                                         col(LedgerEntry.asset_id), exact_sum(LedgerEntry.amount))
                                  .where(col(LedgerEntry.address) != "")
                                  .group_by(col(LedgerEntry.network), col(LedgerEntry.address),
                                            col(LedgerEntry.asset_id)))
        for network, address, asset_id, amount in rows:
            sums[(network, address)][asset_id] += amount  # legs keep the rail's stored form: one per address
    return sums


async def _treasuries(rt: TreasuryEnv) -> set[tuple[str, str]]:
    """(network, address) of every merchant's treasury on every network of its mode, ledger or not: funds sent to a
    treasury that never moved anything yet are drift too."""
    async with rt.db.read() as session:
        accounts = list(await session.exec(select(WalletAccount)))
    places: set[tuple[str, str]] = set()
    for account in accounts:
        if account.livemode and not rt.keys.live_ready:
            continue
        mnemonic = rt.keys.mnemonic(account.livemode)
        for network in rt.catalogue.networks.values():
            if network.is_mainnet == account.livemode:
                places.add((network.id, key_scheme(network).treasury_address(mnemonic, account.account)))
    return places


async def reconcile(rt: TreasuryEnv) -> list[Line]:
    """Every place (treasuries, and deposit addresses the ledger knows) and every asset of its network. Network I/O
    outside any database transaction, batched: one request per network and chunk of calls
    (`Balances.balances`), not one per place and asset; a network whose node does not answer is left out (logged)."""
    ledger = await _ledger(rt)
    treasuries = await _treasuries(rt)
    lines: list[Line] = []
    places: dict[str, list[str]] = defaultdict(list)
    for network_id, address in sorted(set(ledger) | treasuries):
        places[network_id].append(address)
    for network_id, addresses in places.items():
        network = rt.catalogue.networks.get(network_id)
        balances = rt.rails.balances(network_id)
        if network is None or balances is None:
            continue
        wanted = [(asset, address) for address in addresses for asset in network.assets]
        try:
            held = await balances.balances(wanted)
        except ChainUnavailable as e:
            log.warning("reconciliation: chain unavailable", extra={"network": network_id, "error": str(e)})
            continue
        for (asset, address), amount in zip(wanted, held, strict=True):
            role = "treasury" if (network_id, address) in treasuries else "deposit"
            lines.append(Line(network_id, address, asset.id, role, ledger.get((network_id, address), {}).get(
                asset.id, ZERO), Decimal(amount).scaleb(-asset.decimals)))
    return lines


def per_asset(lines: list[Line]) -> dict[str, tuple[Decimal, Decimal]]:
    """asset id → (ledger, chain) summed over its places."""
    sums: dict[str, tuple[Decimal, Decimal]] = {}
    for line in lines:
        ledger, chain = sums.get(line.asset_id, (ZERO, ZERO))
        sums[line.asset_id] = (ledger + line.ledger, chain + line.chain)
    return dict(sorted(sums.items()))


async def reconcile_job(rt: TreasuryEnv) -> None:
    """The scheduler job: one warning per place and asset that drifted; nothing is written or corrected."""
    lines = await reconcile(rt)
    drifted = [line for line in lines if line.drift != 0]
    for line in drifted:
        log.warning("treasury drift", extra={"network": line.network, "address": line.address, "role": line.role,
                                              "asset": line.asset_id, "ledger": text(line.ledger),
                                              "chain": text(line.chain), "drift": text(line.drift)})
    log.info("treasury reconciled", extra={"places": len({(x.network, x.address) for x in lines}),
                                           "drifted": len(drifted)})
