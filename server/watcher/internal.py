"""The balance audit: native coin that reached a watched address inside a contract call (DESIGN §16).

A Safe, an exchange's batch payout or any contract that forwards coin sends it by a CALL inside a transaction whose
`to` is the contract: the block scan (which reads transactions' `to`) never sees it. An address's balance does:

    balance(A, D) = what reached A by block D - what A spent by D

and paygate knows both sides of that but the internal transfers: every transaction to A is a stored transfer (the
watcher scanned D already; the previous audits' findings are stored transfers too), and A only spends through
transactions paygate signed (a deposit address signs its sweeps: their receipts say what each cost, value and fee).
So `balance - (stored transfers - spent)`, when positive, is coin that came by contract calls. It is recorded as
transfers of the native coin at log index ≤ INTERNAL_LOG_INDEX (server/chains/models.py), which no charge counts as
paid: the intent shows them as `unexpected_funds`, an operator refunds them (`paygate refunds unexpected`) and, like
any unexpected funds, the ledger holds them at the address until a sweep moves them (never as a payment). Each is
logged at WARNING ("unexpected funds by contract call").

Which transactions carried them: `trace_filter` over the address's watched blocks names each call, its sender (the
contract) and its block, only when an audit found coin unexplained (none otherwise). Traced transfers are recorded
while they fit in what the balance leaves unexplained; what they do not explain (a node without the trace API: geth,
most hosted endpoints) is one transfer at the audited block with no transaction, its tx_hash
`balance:<block>:<block hash prefix>:<address>` and no sender. Nothing is counted twice: every audit starts from all
stored transfers, its own earlier findings included, so a later audit (or a trace that names, later, funds already
recorded without one) finds nothing more to record; a finding whose block leaves the chain is reverted by the block
scan like any transfer and, if the coin is still there, found again.

Cost. The scheduler's watchers end a pass with the audit when it is due (`audit_balances`). It reads the balances
at the confirmation depth (head - confirmations, which every node keeps state for, and at which the block scan has
recorded every transaction), once every CHECK_EVERY_BLOCKS blocks of it and at a watcher's first pass: one
eth_getBalance per watched address whose watch has not ended (the addresses of open
intents, their grace for late funds included) in JSON-RPC batches of 100 calls per HTTP request, plus one receipt
per transaction paygate signed from those addresses (swept ones only) — never a call per address per block. The
database side is two reads (stored transfers and signed transactions of those addresses, in chunks) and, only when
something was found, one short transaction. Network I/O runs with no database transaction open.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from decimal import Decimal
from typing import Protocol, runtime_checkable

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Asset, Network
from server.chains.models import INTERNAL_LOG_INDEX, ChainTransfer, TransferStatus
from server.db import Database
from server.db.sets import chunks
from server.rails.base import ChainUnavailable, SeenTransfer
from server.watcher import lease
from server.watcher.recording import Counts, Recorder, Watched

log = logging.getLogger("paygate.watcher")
CHECK_EVERY_BLOCKS = 8  # audits at most once per 8 blocks of the confirmation depth (about 96 s on Ethereum)


@runtime_checkable
class BalanceAudit(Protocol):
    """What a scanner offers for the audit (server/rails/evm/scanner.py); a rail without it is not audited."""

    @property
    def native_asset(self) -> Asset | None: ...

    async def block_hash(self, number: int) -> str | None: ...

    async def signed_from(self, session: AsyncSession, addresses: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        ...

    async def native_balances(self, addresses: Sequence[str], block: int) -> list[int]: ...

    async def spent(self, signed: dict[str, list[tuple[str, str]]], block: int) -> dict[str, int]: ...

    async def internal_transfers(self, addresses: Sequence[str], start: int,
                                 end: int) -> list[SeenTransfer] | None: ...


class InternalFunds:
    """The audit of one network's watched addresses; kept by its NetworkWatcher between passes."""

    def __init__(self, db: Database, network: Network, scanner: BalanceAudit, ledger: Recorder, holder: str) -> None:
        self.db = db
        self.network = network
        self.scanner = scanner
        self.ledger = ledger
        self.holder = holder
        self.audited = -1  # the last block audited in this process; -1: audit at the first pass

    def due(self, head: int) -> int | None:
        """The block to audit at this head, None when the last audit is recent enough."""
        block = head - self.network.confirmations
        if block < 0 or (self.audited >= 0 and block < self.audited + CHECK_EVERY_BLOCKS):
            return None
        return block

    async def check(self, watched: dict[str, Watched], head: int) -> Counts:
        block, asset = self.due(head), self.scanner.native_asset
        if block is None:
            return Counts()
        places = sorted(a for a, w in watched.items() if w.from_block <= block)
        if asset is None or not places:
            self.audited = block
            return Counts()
        async with self.db.read() as session:
            received = await _received(session, self.network.id, asset.id, places, block)
            signed = await self.scanner.signed_from(session, places)
        balances = await self.scanner.native_balances(places, block)
        spent = await self.scanner.spent(signed, block)
        excess = {a: held - (received.get(a, 0) - spent.get(a, 0)) for a, held in zip(places, balances, strict=True)}
        excess = {a: wei for a, wei in excess.items() if wei > 0}
        counts = Counts()
        if excess:
            counts = await self._record(excess, watched, asset, block, head)
        self.audited = block
        return counts

    async def _record(self, excess: dict[str, int], watched: dict[str, Watched], asset: Asset, block: int,
                      head: int) -> Counts:
        block_hash = await self.scanner.block_hash(block)
        if block_hash is None:
            raise ChainUnavailable(f"{self.network.id}: block {block} vanished during the balance audit")
        traced = await self.scanner.internal_transfers(sorted(excess), min(watched[a].from_block for a in excess),
                                                       block)
        if traced is None:
            log.warning("no trace API: unexpected funds recorded without their transaction",
                        extra={"network": self.network.id, "block": block})
        async with self.db.transaction() as session:
            await lease.fence(session, self.network.id, self.holder, postgres=self.db.is_postgres)
            stored = await _stored(session, self.network.id, {t.tx_hash for t in traced or []})
            found = [t for a, wei in excess.items()
                     for t in _explain(a, wei, [t for t in traced or [] if t.to_address == a
                                                and t.block_number >= watched[a].from_block],
                                       stored, asset, block, block_hash)]
            counts = await self.ledger.record(session, found, watched, head)
        for t in found:
            log.warning("unexpected funds by contract call", extra={
                "network": self.network.id, "address": t.to_address, "asset": asset.id,
                "amount": str(Decimal(t.amount_base).scaleb(-asset.decimals)), "tx_hash": t.tx_hash,
                "block": t.block_number, "owner": watched[t.to_address].owner_id})
        return counts


def _explain(address: str, wei: int, traced: list[SeenTransfer], stored: dict[tuple[str, int], ChainTransfer],
             asset: Asset, block: int, block_hash: str) -> list[SeenTransfer]:
    """What to record for `wei` unexplained at `address`: the traced transfers not stored yet (or reverted), in chain
    order, while they fit; the rest as one transfer without a transaction at the audited block."""
    out: list[SeenTransfer] = []
    left = wei
    for t in traced:
        row = stored.get((t.tx_hash, t.log_index))
        if row is not None and (row.status != TransferStatus.REVERTED or row.to_address != address):
            continue  # stored and counted in the balance already (or the index is another address's row)
        if t.amount_base <= left:
            out.append(t)
            left -= t.amount_base
    if left > 0:
        out.append(SeenTransfer(
            tx_hash=f"balance:{block}:{block_hash.removeprefix('0x')[:10]}:{address}", log_index=INTERNAL_LOG_INDEX - 1,
            block_number=block, block_hash=block_hash, from_address="", to_address=address, asset_id=asset.id,
            amount_base=left, decimals=asset.decimals))
    return out


async def _received(session: AsyncSession, network: str, asset_id: str, addresses: Sequence[str],
                    block: int) -> dict[str, int]:
    """Wei of the stored, not reverted, native transfers to each address up to `block` (whoever sent them)."""
    out: dict[str, int] = {}
    for part in chunks(list(addresses)):
        rows = await session.exec(select(col(ChainTransfer.to_address), col(ChainTransfer.amount_base)).where(
            ChainTransfer.network == network, ChainTransfer.asset_id == asset_id,
            col(ChainTransfer.to_address).in_(part), col(ChainTransfer.status) != TransferStatus.REVERTED,
            col(ChainTransfer.block_number) <= block))
        for to, amount in rows:
            out[to] = out.get(to, 0) + int(amount)
    return out


async def _stored(session: AsyncSession, network: str, tx_hashes: set[str]) -> dict[tuple[str, int], ChainTransfer]:
    out: dict[tuple[str, int], ChainTransfer] = {}
    for part in chunks(sorted(tx_hashes)):
        for row in await session.exec(select(ChainTransfer).where(ChainTransfer.network == network,
                                                                  col(ChainTransfer.tx_hash).in_(part))):
            out[(row.tx_hash, row.log_index)] = row
    return out
