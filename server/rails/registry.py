"""Which rail serves a network or a provider. Adding a rail: a package under `server/rails/` and one line here.

    FAMILIES   chain family (a network's `family` in the networks file, "evm" by default) → its `Family`
               (server/rails/base.py): how to build the rail of a network, the watcher's scanner of it, the probe
               that says whether its node answers, and how the wallet's seed becomes its addresses and keys
    PROVIDERS  card provider id → how to build its rail (server/rails/card.py `CardRail`, DESIGN §9); every
               registered provider can hold merchants' keys, the `providers` setting says which fiat assets the
               catalogue offers

A caller asks for the capability it needs (`payouts`, `addresses`, `balances`, `receivers`): None when the rail has
no such capability (a card provider has no addresses), so no caller ever tests a family by name.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import DEFAULT_FAMILY, Catalogue, CatalogueError, Network
from server.chains.models import ChainTransfer
from server.config import Settings
from server.db import Database
from server.rails.base import (
    AddressBook,
    AddressPayouts,
    Balances,
    ChainScanner,
    ChainUnavailable,
    Family,
    KeyScheme,
    PayoutOwner,
    PendingPayout,
    Rail,
    Receiver,
)
from server.rails.card import CardRail
from server.rails.evm.family import FAMILY as EVM
from server.rails.provider_a import PROVIDER as PROVIDER_A
from server.rails.provider_a import ProviderARail
from server.rails.utxo.family import FAMILY as UTXO

log = logging.getLogger("paygate.rails")


FAMILIES: dict[str, Family] = {"evm": EVM, "utxo": UTXO}
PROVIDERS: dict[str, Callable[[Settings], CardRail]] = {
    PROVIDER_A: lambda settings: ProviderARail.build(settings.provider_a_api_base)}


def _family(network: Network) -> Family:
    family = FAMILIES.get(network.family)
    if family is None:
        raise CatalogueError(f"network {network.id}: no rail for chain family {network.family!r}")
    return family


def probe(network: Network) -> Awaitable[bool]:
    """Whether `network`'s node answers now, asked the way its family asks (the RPC health's probe)."""
    return _family(network).probe(network)


def key_scheme(network: Network) -> KeyScheme:
    """How the wallet's seed becomes `network`'s addresses and keys (its family's)."""
    family = _family(network)
    return family.keys_for(network) if family.keys_for is not None else family.keys


def merchant_key_scheme() -> KeyScheme:
    """The keys of the family whose treasury is the merchant's one `treasury_address` (the spec's field)."""
    return FAMILIES[DEFAULT_FAMILY].keys


def card_rails(settings: Settings) -> dict[str, CardRail]:
    """Every registered card provider's rail, by provider id (the `Cards` of the runtime)."""
    return {name: build(settings) for name, build in PROVIDERS.items()}


def chain_scanners(catalogue: Catalogue) -> dict[str, ChainScanner]:
    """A scanner for each network that can be watched (one with an rpc_url). No database needed: the watcher's."""
    return {net.id: _family(net).scanner(net) for net in catalogue.networks.values() if net.rpc_url}


class Rails:
    """The rails of one process: one per network with an RPC endpoint, one per configured provider with a rail."""

    def __init__(self, catalogue: Catalogue, db: Database, settings: Settings) -> None:
        self._by_name: dict[str, Rail] = {
            net.id: _family(net).rail(net, catalogue, db, settings)
            for net in catalogue.networks.values() if net.rpc_url}
        self._by_name.update({provider: PROVIDERS[provider](settings)
                              for provider in sorted(settings.providers) if provider in PROVIDERS})

    def get(self, name: str) -> Rail | None:
        return self._by_name.get(name)

    def payouts(self, network: str) -> AddressPayouts | None:
        rail = self._by_name.get(network)
        return rail if isinstance(rail, AddressPayouts) else None

    async def follow(self, pending: Sequence[PendingPayout], owner: PayoutOwner, what: str) -> None:
        """Each source's pending payouts followed by its network's rail (one nonce sequence per source); a network
        whose node does not answer is logged and left for the next pass, the others go on."""
        sources: dict[tuple[str, str], list[PendingPayout]] = {}
        for payout in pending:
            sources.setdefault((payout.network, payout.source), []).append(payout)
        for (network, source), payouts in sources.items():
            rail = self.payouts(network)
            if rail is None:
                continue
            try:
                await rail.follow(source, payouts, owner)
            except ChainUnavailable as e:
                log.warning("%s chain unavailable", what, extra={"network": network, "error": str(e)})

    async def signed_here(self, session: AsyncSession, network: str, tx_hashes: Sequence[str]) -> bool:
        """Whether paygate signed one of these transactions on `network`; never, where it has no payout rail."""
        rail = self.payouts(network)
        return rail is not None and await rail.signed_here(session, tx_hashes)

    async def ours(self, session: AsyncSession, transfer: ChainTransfer) -> bool:
        """A transfer paygate itself signed (a sweep's gas top-up from the treasury to a deposit address): a move
        inside the merchant's own money, posted by its sender, never a payment."""
        return await self.signed_here(session, transfer.network, [transfer.tx_hash])

    def addresses(self, network: str) -> AddressBook | None:
        rail = self._by_name.get(network)
        return rail if isinstance(rail, AddressBook) else None

    def balances(self, network: str) -> Balances | None:
        rail = self._by_name.get(network)
        return rail if isinstance(rail, Balances) else None

    def receivers(self) -> dict[str, Receiver]:
        return {name: r for name, r in self._by_name.items() if isinstance(r, Receiver)}
