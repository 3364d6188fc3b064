"""The EVM rail of one network: every capability of `server/rails/base.py` (receive, addresses, balances, payouts)."""

from __future__ import annotations

from collections.abc import Sequence

from server.catalogue.catalogue import Asset, Catalogue, Network
from server.config import Settings
from server.db import Database
from server.rails.base import ChainScanner
from server.rails.evm import transactions
from server.rails.evm.payouts import EvmPayouts
from server.rails.evm.scanner import EvmScanner


class EvmRail(EvmPayouts):
    family = "evm"

    def __init__(self, network: Network, catalogue: Catalogue, db: Database, *, stuck_seconds: int) -> None:
        super().__init__(network, catalogue, db, stuck_seconds=stuck_seconds)
        self.name = network.id

    @classmethod
    def build(cls, network: Network, catalogue: Catalogue, db: Database, settings: Settings) -> EvmRail:
        return cls(network, catalogue, db, stuck_seconds=settings.refund_stuck_seconds)

    def scanner(self) -> ChainScanner:
        return EvmScanner.for_network(self.network)


    def normalize_address(self, value: str) -> str:
        return transactions.normalize_address(value)  # raises InvalidAddress saying why

    def normalize_tx_hash(self, value: str) -> str:
        return transactions.normalize_tx_hash(value)

    async def balance(self, asset: Asset, address: str) -> int:
        return await self.node.balance(asset, address)

    async def balances(self, wanted: Sequence[tuple[Asset, str]]) -> list[int]:
        return await self.node.balances(wanted)
