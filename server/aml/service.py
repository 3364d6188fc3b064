"""Applying screening verdicts to transfers: in the confirming transaction (sync) or on a later pass (async).

Both take a batch at a time: the watcher hands over which of its transfers have a check already (one query for the
batch), a sync verdict is inserted with its check (no pending row updated a moment later), and settling pending
checks takes one UPDATE per verdict (status and info) plus one read of the transfers it decided.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Sequence

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.aml.models import AmlCheck, CheckStatus
from server.aml.screener import AmlStatus, DenyList, DenyListScreener, Screener, Verdict
from server.chains import hooks
from server.chains.models import ChainTransfer
from server.clock import now_of
from server.config import Settings
from server.db import Database
from server.db.sets import chunks
from server.rails.base import AddressBook

log = logging.getLogger("paygate.aml")
SETTLE_BATCH = 200


class Screening:
    """The screener of this process and the mode it runs in (`aml_mode`)."""

    def __init__(self, screener: Screener, mode: str = "sync") -> None:
        if mode not in ("sync", "async"):
            raise ValueError(f"aml mode {mode!r}")
        self.screener = screener
        self.mode = mode

    @classmethod
    def from_settings(cls, settings: Settings, books: Callable[[str], AddressBook | None]) -> Screening:
        """`books`: each network's address book (the rails'), in which the deny list is compared."""
        return cls(DenyListScreener(DenyList(settings.aml_deny_list, books)), settings.aml_mode)

    @staticmethod
    async def checked(session: AsyncSession, transfer_ids: Collection[str]) -> set[str]:
        """Which of these transfers have a check already (asked or decided): one query per 500."""
        found: set[str] = set()
        for part in chunks(sorted(transfer_ids)):
            found.update((await session.exec(
                select(AmlCheck.transfer_id).where(col(AmlCheck.transfer_id).in_(part)))).all())
        return found

    async def on_confirmed(self, session: AsyncSession, transfer: ChainTransfer, *,
                           has_check: bool | None = None) -> None:
        """Called in the transaction that made `transfer` confirmed: opens its check, and in sync mode decides it.
        `has_check`: whether the transfer has a check already, when the caller knows (`checked`); None looks it up.
        Nothing is flushed here: the check and the verdict reach the database with the batch's other writes."""
        if transfer.aml_status:
            return  # decided already (a transfer re-included after a re-organisation keeps its verdict)
        if has_check is None:
            has_check = await session.get(AmlCheck, transfer.id) is not None
        if has_check:
            return  # asked already
        now = now_of(session)
        verdict = self.screener.screen(transfer) if self.mode == "sync" else Verdict(AmlStatus.CHECKING)
        if not verdict.decided:
            session.add(AmlCheck(transfer_id=transfer.id, network=transfer.network, screener=self.screener.name,
                                 status=CheckStatus.PENDING, info="", requested_at=now, decided_at=0))
            return
        session.add(AmlCheck(transfer_id=transfer.id, network=transfer.network, screener=self.screener.name,
                             status=CheckStatus(verdict.status), info=verdict.info[:500], requested_at=now,
                             decided_at=now))
        await _record(session, transfer, verdict, now)

    async def settle_pending(self, db: Database, network: str) -> int:
        """Asks the screener about the network's pending checks; returns how many it decided.

        The screener runs outside any transaction (an external one calls out over the network); each verdict is
        then recorded only if its check is still pending, so a verdict that arrived meanwhile through `decide()` wins.
        """
        async with db.read() as session:
            rows = (await session.exec(
                select(ChainTransfer).join(AmlCheck, col(AmlCheck.transfer_id) == col(ChainTransfer.id))
                .where(AmlCheck.network == network, AmlCheck.status == CheckStatus.PENDING)
                .order_by(col(AmlCheck.requested_at)).limit(SETTLE_BATCH))).all()
        if not rows:
            return 0
        verdicts = [(t.id, await asyncio.to_thread(self.screener.screen, t)) for t in rows]
        async with db.transaction() as session:
            return await _settle(session, verdicts)


async def decide(db: Database, transfer_id: str, verdict: Verdict) -> bool:
    """Records a verdict reached outside the watcher (a screening provider's callback, a compliance officer).

    False when the transfer has no pending check (never confirmed, or decided already)."""
    if not verdict.decided:
        raise ValueError("decide() needs approved or rejected")
    async with db.transaction() as session:
        return bool(await _settle(session, [(transfer_id, verdict)]))


async def _settle(session: AsyncSession, verdicts: Sequence[tuple[str, Verdict]]) -> int:
    """Records verdicts on pending checks: one UPDATE per kind of verdict, each only where the check is still
    pending (the rows it returns are the checks this call decided), then the transfers of those, in one read.
    Returns how many transfers it decided."""
    now = now_of(session)
    undecided = [transfer_id for transfer_id, verdict in verdicts if not verdict.decided]
    for part in chunks(undecided):
        await session.exec(sa.update(AmlCheck).where(col(AmlCheck.transfer_id).in_(part),
                                                     col(AmlCheck.status) == CheckStatus.PENDING)
                           .values(attempts=col(AmlCheck.attempts) + 1)
                           .execution_options(synchronize_session=False))
    kinds: dict[tuple[AmlStatus, str], list[str]] = {}
    for transfer_id, verdict in verdicts:
        if verdict.decided:
            kinds.setdefault((verdict.status, verdict.info[:500]), []).append(transfer_id)
    won: set[str] = set()
    for (status, info), ids in kinds.items():
        for part in chunks(ids):
            result = await session.exec(
                sa.update(AmlCheck).where(col(AmlCheck.transfer_id).in_(part),
                                          col(AmlCheck.status) == CheckStatus.PENDING)
                .values(status=CheckStatus(status), info=info, decided_at=now)
                .returning(col(AmlCheck.transfer_id)).execution_options(synchronize_session=False))
            won.update(result.scalars().all())
    if not won:
        return 0
    transfers: dict[str, ChainTransfer] = {}
    for part in chunks(sorted(won)):
        transfers.update((t.id, t) for t in (await session.exec(
            select(ChainTransfer).where(col(ChainTransfer.id).in_(part)))).all())
    decided = 0
    for transfer_id, verdict in verdicts:  # in the order asked: listeners hear them in that order
        transfer = transfers.get(transfer_id) if transfer_id in won else None
        if transfer is None or transfer.aml_status != AmlStatus.CHECKING:
            continue
        await _record(session, transfer, verdict, now)
        decided += 1
    return decided


async def _record(session: AsyncSession, transfer: ChainTransfer, verdict: Verdict, now: int) -> None:
    """The verdict on the transfer (written with the session's next flush), and the listeners told."""
    previous_aml = transfer.aml_status
    transfer.aml_status, transfer.aml_info = verdict.status, verdict.info[:500]
    transfer.stamp(now)
    session.add(transfer)
    log.info("aml verdict", extra={"transfer": transfer.id, "aml_status": verdict.status})
    await hooks.notify(session, transfer, transfer.status, previous_aml)
