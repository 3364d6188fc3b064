"""Which stored row a transfer seen on chain is: one row per transfer of a transaction, across re-organisations.

A re-organisation can put a transaction back in another block, and there at another log index (another transaction's
logs come first in its new block). Keyed by log index, its transfer would get a second row, counted beside the first
until the first's block is rescanned (in a later batch of the pass, when the new block is lower), with a new id, a
new first-seen time (which the quote rule reads) and a new AML check. So a transfer is matched to its row by what it
is within its transaction: sender, recipient, asset and amount, the n-th such transfer of the transaction in log
order. A sighting at its row's own log index with the same content is that row (the usual case, nothing moved).

    pair(sightings, rows)   → (sighting, row) pairs, and the sightings that are new transfers
    renumber(...)           → the moved rows take their new log indexes without two rows ever holding one
                              (uq_chain_transfers_tx), in the caller's transaction

A row of the transaction that no sighting claims keeps its log index, unless a sighting needs it: re-executed in its
new block the transaction did something else (a contract's transfer that depends on state), so the row's transfer is
gone with its old block and stays `reverted`; it is parked at a negative index (-2, -3, …; -1 is a native transfer).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count

from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.models import ChainTransfer
from server.rails.base import SeenTransfer

Pair = tuple[SeenTransfer, ChainTransfer]


def _same(t: SeenTransfer, row: ChainTransfer) -> bool:
    return ((t.from_address, t.to_address, t.asset_id, t.amount_base)
            == (row.from_address, row.to_address, row.asset_id, int(row.amount_base)))


def pair(sightings: Sequence[SeenTransfer], rows: Sequence[ChainTransfer]) -> tuple[list[Pair], list[SeenTransfer]]:
    """Each sighting of one transaction (one block, in log order) with its stored row, or among the new ones."""
    free = sorted(rows, key=lambda r: r.log_index)
    at_index = {r.log_index: r for r in free}
    pairs: list[Pair] = []
    rest: list[SeenTransfer] = []
    for t in sightings:
        row = at_index.get(t.log_index)
        if row is not None and _same(t, row):
            pairs.append((t, row))
            free = [r for r in free if r is not row]
        else:
            rest.append(t)
    new: list[SeenTransfer] = []
    for t in rest:
        row = next((r for r in free if _same(t, r)), None)
        if row is None:
            new.append(t)
        else:
            pairs.append((t, row))
            free = [r for r in free if r is not row]
    return pairs, new


async def renumber(session: AsyncSession, rows: Sequence[ChainTransfer], pairs: Sequence[Pair],
                   new: Sequence[SeenTransfer]) -> None:
    """Moves each paired row to its sighting's log index and parks the unclaimed rows in the way, before the new
    transfers are added. When an index is taken over from another row, the rows first go to spare indexes, flushed,
    so that no statement meets the unique key half-way; a plain shift to free indexes takes no extra flush."""
    movers = [(t, row) for t, row in pairs if row.log_index != t.log_index]
    claimed = {id(row) for _, row in pairs}
    needed = {t.log_index for t, _ in pairs} | {t.log_index for t in new}
    parked = [r for r in rows if id(r) not in claimed and r.log_index in needed]
    held = {r.log_index for r in rows}
    if not parked and not any(t.log_index in held for t, _ in movers):
        for t, row in movers:
            row.log_index = t.log_index
            session.add(row)
        return
    spare = (i for i in count(-2, -1) if i not in held)
    for row in [*parked, *(row for _, row in movers)]:
        row.log_index = next(spare)
        session.add(row)
    await session.flush()
    for t, row in movers:
        row.log_index = t.log_index
        session.add(row)
