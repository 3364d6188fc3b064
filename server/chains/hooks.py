"""Listeners the watcher calls, inside its transaction, after a ChainTransfer is created or changes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.models import ChainTransfer

# (session, transfer, previous status or "" when new, previous aml_status)
TransferListener = Callable[[AsyncSession, ChainTransfer, str, str], Awaitable[None]]
TRANSFER_LISTENERS: list[TransferListener] = []


async def notify(session: AsyncSession, transfer: ChainTransfer, previous_status: str, previous_aml: str) -> None:
    for listener in TRANSFER_LISTENERS:
        await listener(session, transfer, previous_status, previous_aml)
