"""Recording what a scan saw: new transfers, re-organised ones and confirmations, each change told to the listeners.

Statuses (`server.chains.models.TransferStatus`; `confirmations` counts the blocks built on top of the transfer's):

    submitted   in a block, nothing on top yet; or unmined, waiting in the node's mempool (block_hash "", a
                rail with a mempool reader, mempool.py): no confirmations, never counted as paid nor screened
    confirming  1 ≤ confirmations < the network's threshold
    confirmed   confirmations ≥ threshold; AML screening starts
    reverted    its block left the canonical chain, or it left the mempool unmined (replaced, double-spent); if
                the transaction is mined again the same row is recorded again (reverted → submitted …), at its
                new block and log index (same_transfer.py), so a transfer is never counted twice, not even for a
                moment

An unmined transfer found in a block moves to that block in place (submitted → submitted or further), never through
`reverted`: it was never counted anywhere else.

Every change runs `hooks.notify(session, transfer, previous_status, previous_aml)` in the caller's transaction, in
the order the changes happen (a transfer's own AML verdict right after its confirmation).

A batch's writes are left to the session's unit of work, which sends them together at its next flush (one INSERT
for the new transfers, one for their AML checks, one UPDATE per kind of change): nothing here flushes row by row, and
the only reads are one for the range's stored transfers, one for those seen again, one for the open ones at the head
and one for which of the stored ones have an AML check (a re-organisation that hands a transfer's log index to
another of its transaction's rows adds one flush, same_transfer.renumber). A listener that queries the session
flushes what is pending first (autoflush), so it always reads the changes it was told about.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlmodel import col, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.aml import Screening
from server.chains import hooks
from server.chains.models import UNCONFIRMED, ChainTransfer, TransferStatus
from server.clock import now_of
from server.db.sets import chunks
from server.ids import new_id
from server.rails.base import ScanResult, SeenTransfer
from server.watcher import same_transfer

T = TransferStatus
UNMINED = ""  # the block hash of a transfer seen in the mempool only (block_number 0)


def unmined(row: ChainTransfer) -> bool:
    """Seen waiting in the mempool, in no block yet (and not reverted)."""
    return row.block_hash == UNMINED and row.status != T.REVERTED


def status_for(confirmations: int, threshold: int) -> TransferStatus:
    if confirmations >= threshold:
        return T.CONFIRMED
    return T.CONFIRMING if confirmations >= 1 else T.SUBMITTED


@dataclass(frozen=True)
class Watched:
    owner_id: str
    from_block: int


@dataclass
class Counts:
    inserted: int = 0
    reverted: int = 0
    recorded_again: int = 0
    status_changes: int = 0

    def add(self, other: Counts) -> None:
        self.inserted += other.inserted
        self.reverted += other.reverted
        self.recorded_again += other.recorded_again
        self.status_changes += other.status_changes


class Recorder:
    def __init__(self, network: str, threshold: int, screening: Screening) -> None:
        self.network = network
        self.threshold = threshold
        self.screening = screening

    async def apply(self, session: AsyncSession, result: ScanResult, watched: dict[str, Watched],
                    head: int) -> Counts:
        """Makes the stored transfers of [result.start, result.end] agree with the chain, then (at the head)
        brings every open transfer's confirmations up to date. Each transfer keeps its block's timestamp
        (`result.times`; None where the rail does not tell it)."""
        times = result.times
        counts = Counts()
        at_head = result.end == head
        # Stored transfers whose block is no longer canonical. At the head, blocks above it count too: they are
        # gone when the chain got shorter (a re-organisation to a shorter fork, a restarted dev chain).
        in_range = col(ChainTransfer.block_number) >= result.start
        if not at_head:
            in_range &= col(ChainTransfer.block_number) <= result.end
        stored = (await session.exec(select(ChainTransfer).where(
            ChainTransfer.network == self.network, col(ChainTransfer.status) != T.REVERTED,
            col(ChainTransfer.block_hash) != UNMINED, in_range))).all()
        for gone in stored:
            if result.hashes.get(gone.block_number) != gone.block_hash:
                await self._move(session, gone, T.REVERTED, gone.confirmations)
                counts.reverted += 1

        seen = {(t.tx_hash, t.log_index): t for t in result.transfers
                if t.to_address in watched and t.block_number >= watched[t.to_address].from_block}
        by_tx: dict[str, list[SeenTransfer]] = {}
        for t in sorted(seen.values(), key=lambda t: (t.block_number, t.log_index)):
            by_tx.setdefault(t.tx_hash, []).append(t)
        known = await self._known(session, set(by_tx))
        checked = await self.screening.checked(
            session, [r.id for rows in known.values() for r in rows if not r.aml_status])
        for tx_hash, sightings in by_tx.items():
            rows = known.get(tx_hash, [])
            block_hash = sightings[0].block_hash  # a transaction is in one block
            for row in rows:
                if row.status != T.REVERTED and row.block_hash not in (block_hash, UNMINED):
                    # Recorded in a block that is not canonical any more, maybe outside this range (in a later batch
                    # of a rescan): the same fork change, told before the transaction's new sighting is.
                    await self._move(session, row, T.REVERTED, row.confirmations)
                    counts.reverted += 1
            pairs, new = same_transfer.pair(sightings, rows)
            await same_transfer.renumber(session, rows, pairs, new)
            for t, row in pairs:
                if row.status == T.REVERTED:
                    confirmations = max(head - t.block_number, 0)
                    row.block_number, row.block_hash = t.block_number, t.block_hash
                    row.block_timestamp = times.get(t.block_number)
                    await self._move(session, row, status_for(confirmations, self.threshold), confirmations,
                                     has_check=row.id in checked)
                    counts.recorded_again += 1
                elif row.block_hash == UNMINED:
                    counts.status_changes += await self._mined(session, row, t, head, times.get(t.block_number),
                                                               has_check=row.id in checked)
            for t in new:
                await self._insert(session, t, watched[t.to_address].owner_id, max(head - t.block_number, 0),
                                   times.get(t.block_number))
                counts.inserted += 1
        if at_head:
            counts.add(await self.refresh_open(session, head))
        return counts

    async def refresh_open(self, session: AsyncSession, head: int) -> Counts:
        counts = Counts()
        rows = (await session.exec(select(ChainTransfer).where(
            ChainTransfer.network == self.network, or_(*(col(ChainTransfer.status) == s for s in UNCONFIRMED)),
            col(ChainTransfer.block_hash) != UNMINED,  # in no block: nothing to count on top of it
            col(ChainTransfer.block_number) <= head))).all()
        confirming = [r.id for r in rows
                      if not r.aml_status and status_for(head - r.block_number, self.threshold) == T.CONFIRMED]
        checked = await self.screening.checked(session, confirming)
        for row in rows:
            confirmations = head - row.block_number
            status = status_for(confirmations, self.threshold)
            if status != row.status:
                await self._move(session, row, status, confirmations, has_check=row.id in checked)
                counts.status_changes += 1
            elif confirmations != row.confirmations:
                row.confirmations = confirmations
                row.stamp(now_of(session))
                session.add(row)  # a count alone is not a change listeners act on
        return counts

    async def record(self, session: AsyncSession, found: list[SeenTransfer], watched: dict[str, Watched],
                     head: int) -> Counts:
        """Transfers found outside a block scan (native coin sent by contract calls, internal.py), each new or a
        reverted row of the same transfer (tx hash and log index) recorded again with what the chain shows now. The
        caller leaves out what is stored and counts already."""
        counts = Counts()
        known = await self._known(session, {t.tx_hash for t in found})
        checked = await self.screening.checked(
            session, [r.id for rows in known.values() for r in rows if not r.aml_status])
        for t in found:
            confirmations = max(head - t.block_number, 0)
            row = next((r for r in known.get(t.tx_hash, []) if r.log_index == t.log_index), None)
            if row is None:
                await self._insert(session, t, watched[t.to_address].owner_id, confirmations, None)
                counts.inserted += 1
            elif row.status == T.REVERTED:
                row.block_number, row.block_hash, row.block_timestamp = t.block_number, t.block_hash, None
                row.from_address, row.amount_base = t.from_address, Decimal(t.amount_base)
                row.from_addresses = list(t.from_addresses) or None
                await self._move(session, row, status_for(confirmations, self.threshold), confirmations,
                                 has_check=row.id in checked)
                counts.recorded_again += 1
        return counts

    async def apply_mempool(self, session: AsyncSession, seen: list[SeenTransfer], watched: dict[str, Watched],
                            vanished: set[str]) -> Counts:
        """Lists the transfers of transactions waiting in the mempool (`seen`, block_number 0, block_hash "") as
        unmined `submitted`, and ends as `reverted` the unmined ones of transactions that left it without being mined
        (`vanished`). A transaction with a row already is left alone (waiting still, or in a block the block scan
        follows), except a reverted one: back in the mempool (its block re-organised away), it is listed again."""
        counts = Counts()
        fresh = [t for t in seen if t.to_address in watched]
        known = await self._known(session, {t.tx_hash for t in fresh} | vanished)
        for tx_hash in sorted(vanished):
            for row in known.get(tx_hash, []):
                if unmined(row):
                    await self._move(session, row, T.REVERTED, 0)
                    counts.reverted += 1
        by_tx: dict[str, list[SeenTransfer]] = {}
        for t in sorted(fresh, key=lambda t: (t.tx_hash, t.log_index)):
            by_tx.setdefault(t.tx_hash, []).append(t)
        for tx_hash, sightings in by_tx.items():
            rows = known.get(tx_hash, [])
            if any(r.status != T.REVERTED for r in rows):
                continue
            pairs, new = same_transfer.pair(sightings, rows)
            await same_transfer.renumber(session, rows, pairs, new)
            for _, row in pairs:
                row.block_number, row.block_hash, row.block_timestamp = 0, UNMINED, None
                await self._move(session, row, T.SUBMITTED, 0)
                counts.recorded_again += 1
            for t in new:
                await self._insert(session, t, watched[t.to_address].owner_id, 0, None)
                counts.inserted += 1
        return counts

    async def _mined(self, session: AsyncSession, row: ChainTransfer, t: SeenTransfer, head: int,
                     block_timestamp: int | None, *, has_check: bool) -> int:
        """An unmined row found in block `t.block_number`: moved there in place; listeners hear it when its status
        changes (a block on top of it already), not for the block alone. Returns 1 for a status change."""
        confirmations = max(head - t.block_number, 0)
        row.block_number, row.block_hash, row.block_timestamp = t.block_number, t.block_hash, block_timestamp
        status = status_for(confirmations, self.threshold)
        if status != row.status:
            await self._move(session, row, status, confirmations, has_check=has_check)
            return 1
        row.confirmations = confirmations
        row.stamp(now_of(session))
        session.add(row)
        return 0

    async def _known(self, session: AsyncSession, tx_hashes: set[str]) -> dict[str, list[ChainTransfer]]:
        """Every stored row of these transactions on this network, whatever its status or block."""
        known: dict[str, list[ChainTransfer]] = {}
        for part in chunks(sorted(tx_hashes)):
            rows = (await session.exec(select(ChainTransfer).where(
                ChainTransfer.network == self.network, col(ChainTransfer.tx_hash).in_(part)))).all()
            for r in rows:
                known.setdefault(r.tx_hash, []).append(r)
        return known

    async def _insert(self, session: AsyncSession, t: SeenTransfer, owner_id: str, confirmations: int,
                      block_timestamp: int | None) -> None:
        now = now_of(session)
        row = ChainTransfer(
            id=new_id("tx"), network=self.network, tx_hash=t.tx_hash, log_index=t.log_index,
            block_number=t.block_number, block_hash=t.block_hash, block_timestamp=block_timestamp,
            from_address=t.from_address, from_addresses=list(t.from_addresses) or None,
            to_address=t.to_address, asset_id=t.asset_id,
            amount_base=Decimal(t.amount_base), decimals=t.decimals,
            owner_id=owner_id, status=status_for(confirmations, self.threshold), confirmations=confirmations,
            created_at=now, updated_at=now)
        session.add(row)
        await self._changed(session, row, "", "", has_check=False)  # a new id: never screened

    async def _move(self, session: AsyncSession, row: ChainTransfer, status: TransferStatus,
                    confirmations: int, *, has_check: bool | None = None) -> None:
        previous = row.status
        row.status, row.confirmations = status, confirmations
        row.stamp(now_of(session))
        session.add(row)
        await self._changed(session, row, previous, row.aml_status, has_check=has_check)

    async def _changed(self, session: AsyncSession, row: ChainTransfer, previous: str, previous_aml: str, *,
                       has_check: bool | None) -> None:
        """A transfer recorded or moved: the listeners hear it, and entering `confirmed` opens its screening."""
        await hooks.notify(session, row, previous, previous_aml)
        if row.status == T.CONFIRMED:
            await self.screening.on_confirmed(session, row, has_check=has_check)
