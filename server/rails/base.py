"""What the chain watcher needs from a rail: the head, and what a range of blocks holds for a set of addresses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class SeenTransfer:
    """A transfer found on chain to a watched address. `amount_base` is in the asset's smallest unit, exact."""

    tx_hash: str
    log_index: int  # -1 for a native transfer
    block_number: int
    block_hash: str
    from_address: str
    to_address: str
    asset_id: str
    amount_base: int
    decimals: int


@dataclass(frozen=True)
class ScanResult:
    """The canonical hash of every block in [start, end], its first block's parent, and the transfers found."""

    start: int
    end: int
    parent_hash: str  # of block `start`; links this range to the previous one
    hashes: dict[int, str] = field(default_factory=dict)
    transfers: list[SeenTransfer] = field(default_factory=list)


class ChainUnavailable(Exception):
    """The node did not answer, or answered something inconsistent (e.g. a re-organisation during the scan)."""


class ChainScanner(Protocol):
    network: str

    async def check(self) -> None:
        """Raises ChainUnavailable when the node is unreachable or serves another chain than the catalogue's."""

    async def head(self) -> int: ...

    async def close(self) -> None:
        """Closes the connections to the node."""

    async def block_hash(self, number: int) -> str | None:
        """The canonical hash at `number`, None beyond the head."""

    async def scan(self, start: int, end: int, recipients: set[str]) -> ScanResult: ...
