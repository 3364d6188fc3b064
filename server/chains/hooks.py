"""Listeners the watcher calls, inside its transaction, after a ChainTransfer is created or changes.

A package listens with `listen(db, listener, stage)` from its `register(runtime)`; the listeners belong to that
Database (so to one runtime), never to the module. The stages run in their declared order whatever order the
packages registered in: a transfer is first attributed (payment_intents links it to its charge and settles the
intent), then posted (the treasury's ledger reads the settled intent)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import IntEnum

from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.models import ChainTransfer
from server.db import Database
from server.db.engine import hooks_of

# (session, transfer, previous status or "" when new, previous aml_status)
TransferListener = Callable[[AsyncSession, ChainTransfer, str, str], Awaitable[None]]
TRANSFER_CHANGED = "chains.transfer_changed"


class Stage(IntEnum):
    ATTRIBUTE = 1  # the transfer's charge and intent are brought up to date
    POST = 2  # what follows from the settled intent: the ledger's entries
    OBSERVE = 3  # listeners that only watch (the tests' recorders)


def _hook(stage: Stage) -> str:
    return f"{TRANSFER_CHANGED}.{stage.name.lower()}"


def listen(db: Database, listener: TransferListener, stage: Stage = Stage.OBSERVE) -> None:
    db.hooks.add(_hook(stage), listener)


def listeners(db: Database) -> tuple[TransferListener, ...]:
    """Every listener of `db`, in the order `notify` calls them."""
    return tuple(listener for stage in Stage for listener in db.hooks.of(_hook(stage)))


async def notify(session: AsyncSession, transfer: ChainTransfer, previous_status: str, previous_aml: str) -> None:
    hooks = hooks_of(session)
    for stage in Stage:
        for listener in hooks.of(_hook(stage)):
            await listener(session, transfer, previous_status, previous_aml)
