"""The EVM rail of one network: every capability of `server/rails/base.py` (receive, addresses, balances, payouts)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from server.catalogue.catalogue import Asset, Catalogue, Network
from server.config import Settings
from server.db import Database
from server.rails.base import ChainScanner
from server.rails.evm import eip681, transactions
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

    def payment_uri(self, address: str, amount: Decimal | None = None, asset: Asset | None = None) -> str:
        """The EIP-681 URI of the checkout's QR code (eip681.py): a token transfer, or the native coin's value."""
        coin = asset or next((a for a in self.network.assets if not a.contract_address), None)
        if coin is None or coin.network != self.network.id:
            raise ValueError(f"{coin.id if coin else 'the native coin'} is not an asset of {self.name}")
        units = None if amount is None else eip681.base_units(amount, coin.decimals)
        return eip681.payment_uri(address, self.network.chain_id, units, contract=coin.contract_address)

    async def balance(self, asset: Asset, address: str) -> int:
        return await self.node.balance(asset, address)

    async def balances(self, wanted: Sequence[tuple[Asset, str]]) -> list[int]:
        return await self.node.balances(wanted)
