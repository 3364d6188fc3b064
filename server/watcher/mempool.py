"""The mempool step of a pass, for a rail whose scanner reads its node's mempool (`MempoolReader`, the UTXO rail):
a payment is listed the moment it reaches the node, unmined, and one that leaves the mempool unmined is ended.

    the mempool's transfers to watched addresses (node I/O, no transaction open)
        ─► of the transfers listed unmined, those whose transaction is not among them: vanished? (node I/O)
        ─► only when something is new or vanished: one short transaction (fence the lease, record)

Unmined transfers are `submitted` with block_number 0 and block_hash "" (recording.py): never confirmed by the
block count, so never counted as paid nor screened. The block scan, which runs first in a pass, moves one to its
block when it is mined. One that the node no longer has, in the mempool or a block of the active chain (replaced by
BIP-125, double-spent, evicted), becomes `reverted`; mined after all (re-broadcast), it is recorded again like any
reverted transfer. Asking the node about each unmined transfer's transaction only when it left the mempool (not
about every one every pass) keeps a pass's cost to the mempool's new arrivals.
"""

from __future__ import annotations

from sqlmodel import col, select

from server.chains.models import ChainTransfer, TransferStatus
from server.db import Database
from server.rails.base import MempoolReader
from server.watcher import lease
from server.watcher.recording import UNMINED, Counts, Recorder, Watched


class MempoolWatch:
    def __init__(self, db: Database, network: str, reader: MempoolReader, ledger: Recorder, holder: str) -> None:
        self.db = db
        self.network = network
        self.reader = reader
        self.ledger = ledger
        self.holder = holder

    async def unmined_recipients(self) -> dict[str, Watched]:
        """The addresses of transfers listed unmined, with their owners: watched (in blocks and the mempool) until
        their transaction is mined or gone, even once the address's own watch ended (a payment waits in a mempool as
        long as its fee keeps it there), so that none stays listed as waiting forever."""
        async with self.db.read() as session:
            rows = (await session.exec(select(ChainTransfer.to_address, ChainTransfer.owner_id).where(
                ChainTransfer.network == self.network, ChainTransfer.status == TransferStatus.SUBMITTED,
                col(ChainTransfer.block_hash) == UNMINED))).all()
        return {address: Watched(owner_id, 0) for address, owner_id in rows}

    async def check(self, watched: dict[str, Watched]) -> Counts:
        seen = [t for t in await self.reader.mempool_transfers(set(watched)) if t.to_address in watched]
        async with self.db.read() as session:
            listed = set((await session.exec(select(ChainTransfer.tx_hash, ChainTransfer.log_index).where(
                ChainTransfer.network == self.network, ChainTransfer.status == TransferStatus.SUBMITTED,
                col(ChainTransfer.block_hash) == UNMINED))).all())
        waiting = {t.tx_hash for t in seen}
        gone = {tx_hash for tx_hash, _ in listed if tx_hash not in waiting}
        vanished = await self.reader.vanished(gone) if gone else set()
        if not vanished and all((t.tx_hash, t.log_index) in listed for t in seen):
            return Counts()  # every waiting transfer listed already, none gone: nothing to write
        async with self.db.transaction() as session:
            await lease.fence(session, self.network, self.holder, postgres=self.db.is_postgres)
            return await self.ledger.apply_mempool(session, seen, watched, vanished)
