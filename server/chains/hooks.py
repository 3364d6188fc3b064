"""Listeners the watcher calls, inside its transaction, after a ChainTransfer is created or changes.

A package listens with `listen(db, listener)` from its `register(runtime)`; the listeners belong to that Database
(so to one runtime), never to the module."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.models import ChainTransfer
from server.db import Database
from server.db.engine import hooks_of

# (session, transfer, previous status or "" when new, previous aml_status)
TransferListener = Callable[[AsyncSession, ChainTransfer, str, str], Awaitable[None]]
TRANSFER_CHANGED = "chains.transfer_changed"


def listen(db: Database, listener: TransferListener) -> None:
    db.hooks.add(TRANSFER_CHANGED, listener)


async def notify(session: AsyncSession, transfer: ChainTransfer, previous_status: str, previous_aml: str) -> None:
    for listener in hooks_of(session).of(TRANSFER_CHANGED):
        await listener(session, transfer, previous_status, previous_aml)
