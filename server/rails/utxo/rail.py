"""The UTXO rail of one network: receiving (`scanner()`), addresses (`AddressBook`), balances (`Balances`), and,
with the database that keeps its spends, payouts (`AddressPayouts`, payouts.py; their pure half is spend.py).

`UtxoRail` alone needs no database (the tools and tests that only read the node); `build` makes the paying one.
Each call opens its own short-lived connection: the rail is shared by every request of the process, and a pool
bound to one event loop must not outlive it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_UP, Decimal

from server.catalogue.catalogue import Asset, Catalogue, Network
from server.config import Settings
from server.db import Database
from server.rails.base import ChainScanner, ChainUnavailable
from server.rails.utxo import addresses, balances
from server.rails.utxo.derivation import UtxoKeys
from server.rails.utxo.node import NodeClient, RpcError
from server.rails.utxo.params import UtxoParams
from server.rails.utxo.payouts import UtxoPayouts
from server.rails.utxo.scanner import UtxoScanner
from server.rails.utxo.spend import Utxo


class UtxoRail:
    family = "utxo"

    def __init__(self, network: Network) -> None:
        self.name = network.id
        self.network = network
        self.params = UtxoParams.of(network)
        self.keys = UtxoKeys(self.params.hrp, self.params.coin_type)
        self.native = next((a for a in network.assets if not a.contract_address), None)

    @classmethod
    def build(cls, network: Network, catalogue: Catalogue, db: Database, settings: Settings) -> UtxoRail:
        return PayingUtxoRail(network, db)

    def _client(self) -> NodeClient:
        return NodeClient(self.network.rpc_url)

    def scanner(self) -> ChainScanner:
        return UtxoScanner.for_network(self.network)

    def normalize_address(self, value: str) -> str:
        return addresses.normalize_address(self.params.hrp, value)  # raises InvalidAddress saying why

    def normalize_tx_hash(self, value: str) -> str:
        return addresses.normalize_tx_hash(value)

    def payment_uri(self, address: str, amount: Decimal | None = None, asset: Asset | None = None) -> str:
        """The BIP-21 URI of the checkout's QR code (`litecoin:<address>?amount=<LTC>`, `PaymentRequests`): only
        the native coin lives in outputs, so an asset of another network is refused."""
        if asset is not None and not self._holds(asset):
            raise ValueError(f"{asset.id} is not an asset of {self.name}")
        decimals = self.native.decimals if self.native else 8
        return addresses.payment_uri(self.params.uri_scheme, address, amount, decimals)

    def _holds(self, asset: Asset) -> bool:
        # Only the native coin lives in outputs; an asset of another network holds nothing here.
        return self.native is not None and asset.id == self.native.id

    async def balance(self, asset: Asset, address: str) -> int:
        return (await self.balances([(asset, address)]))[0]

    async def balances(self, wanted: Sequence[tuple[Asset, str]]) -> list[int]:
        """Confirmed holdings, in order, from one scantxoutset call (balances.py)."""
        mine = [address for asset, address in wanted if self._holds(asset)]
        if not mine or self.native is None:
            return [0] * len(wanted)
        async with self._client() as client:
            held = dict(zip(mine, await balances.balances(client, self.params.hrp, mine, self.native.decimals),
                            strict=True))
        return [held[address] if self._holds(asset) else 0 for asset, address in wanted]

    async def utxos(self, owners: Sequence[str]) -> list[Utxo]:
        """The confirmed unspent outputs of `owners` (stored-form addresses): what a spend can select from."""
        decimals = self.native.decimals if self.native else 8
        async with self._client() as client:
            return await balances.utxos(client, self.params.hrp, owners, decimals)

    async def fee_rate(self) -> Decimal:
        """The fee rate to price a spend at, sat/vB: the node's estimate for `fee_target` blocks, never below the
        network's `fee_rate_floor` (regtest and a freshly started node have no estimate: the floor)."""
        async with self._client() as client:
            try:
                answer = await client.call("estimatesmartfee", self.params.fee_target)
            except RpcError as e:
                raise ChainUnavailable(f"{self.name}: {e}") from e
        per_kvb = answer.get("feerate") if isinstance(answer, dict) else None
        if not isinstance(per_kvb, Decimal | int):
            return self.params.fee_rate_floor
        # feerate is in coins per 1000 vB.
        decimals = self.native.decimals if self.native else 8
        rate = (Decimal(per_kvb).scaleb(decimals) / 1000).quantize(Decimal("0.001"), rounding=ROUND_UP)
        return max(rate, self.params.fee_rate_floor)


class PayingUtxoRail(UtxoRail, UtxoPayouts):
    """The rail of a network whose spends paygate signs and keeps (refunds today)."""

    def __init__(self, network: Network, db: Database) -> None:
        UtxoRail.__init__(self, network)
        UtxoPayouts.__init__(self, network, self.params, self.native.decimals if self.native else 8, db,
                             self.fee_rate)
