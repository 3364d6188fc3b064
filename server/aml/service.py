"""Applying screening verdicts to transfers: in the confirming transaction (sync) or on a later pass (async)."""

from __future__ import annotations

import asyncio
import logging

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.aml.models import AmlCheck, CheckStatus
from server.aml.screener import AmlStatus, DenyListScreener, Screener, Verdict
from server.chains import hooks
from server.chains.models import ChainTransfer
from server.config import Settings
from server.db import Database

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
    def from_settings(cls, settings: Settings) -> Screening:
        return cls(DenyListScreener(settings.aml_deny_list), settings.aml_mode)

    async def on_confirmed(self, session: AsyncSession, transfer: ChainTransfer) -> None:
        """Called in the transaction that made `transfer` confirmed: opens its check, and in sync mode decides it."""
        if transfer.aml_status or await session.get(AmlCheck, transfer.id) is not None:
            return  # decided or asked already (a transfer re-included after a re-organisation keeps its verdict)
        check = AmlCheck(transfer_id=transfer.id, network=transfer.network, screener=self.screener.name,
                         status=CheckStatus.PENDING, requested_at=clock.now())
        session.add(check)
        if self.mode == "sync":
            verdict = self.screener.screen(transfer)
            if verdict.decided:
                await session.flush()
                await _settle(session, transfer.id, verdict)

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
        decided = 0
        async with db.transaction() as session:
            for transfer_id, verdict in verdicts:
                decided += await _settle(session, transfer_id, verdict)
        return decided


async def decide(db: Database, transfer_id: str, verdict: Verdict) -> bool:
    """Records a verdict reached outside the watcher (a screening provider's callback, a compliance officer).

    False when the transfer has no pending check (never confirmed, or decided already)."""
    if not verdict.decided:
        raise ValueError("decide() needs approved or rejected")
    async with db.transaction() as session:
        return bool(await _settle(session, transfer_id, verdict))


async def _settle(session: AsyncSession, transfer_id: str, verdict: Verdict) -> int:
    now = clock.now()
    pending = (col(AmlCheck.transfer_id) == transfer_id) & (col(AmlCheck.status) == CheckStatus.PENDING)
    if not verdict.decided:
        await session.exec(sa.update(AmlCheck).where(pending).values(attempts=col(AmlCheck.attempts) + 1))
        return 0
    result = await session.exec(sa.update(AmlCheck).where(pending)
                                   .values(status=CheckStatus(verdict.status), info=verdict.info[:500], decided_at=now))
    if getattr(result, "rowcount", 0) != 1:
        return 0
    transfer = await session.get(ChainTransfer, transfer_id)
    if transfer is None or transfer.aml_status != AmlStatus.CHECKING:
        return 0
    previous_aml = transfer.aml_status
    transfer.aml_status, transfer.aml_info, transfer.updated_at = verdict.status, verdict.info[:500], now
    session.add(transfer)
    await session.flush()
    log.info("aml verdict", extra={"transfer": transfer_id, "aml_status": verdict.status})
    await hooks.notify(session, transfer, transfer.status, previous_aml)
    return 1
