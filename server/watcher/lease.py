"""The NetworkCursor row as a lease: one watcher at a time scans a network, however many scheduler processes run.

`claim` takes the lease when it is free or lapsed (on PostgreSQL under `SELECT … FOR UPDATE SKIP LOCKED`, so two
claimants never wait on each other; on SQLite the single writer serialises claims). Every later write of the pass
goes through `fence`, which locks the row and checks the holder is still us: a watcher that stalled past its lease
and lost it writes nothing.
"""

from __future__ import annotations

import os
import secrets
import socket

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.models import NetworkCursor
from server.clock import now_of
from server.db import Database

LEASE_SECONDS = 60


class LeaseLost(Exception):
    """Another watcher holds the network now; this pass stops without writing."""


def holder_id() -> str:
    """Names this watcher in `holder`: host, process and a random part (a restarted process is a new holder)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


async def claim(db: Database, network: str, holder: str) -> NetworkCursor | None:
    """The cursor, now leased to `holder`; None while another watcher holds it."""
    async with db.transaction() as session:
        if await session.get(NetworkCursor, network) is None:
            insert = postgresql.insert if db.is_postgres else sqlite.insert
            await session.exec(insert(NetworkCursor).values(
                network=network, last_block=-1, last_block_hash="", holder="", lease_until=0,
            ).on_conflict_do_nothing())
        now = db.clock.now()
        query = select(NetworkCursor).where(
            NetworkCursor.network == network,
            or_(col(NetworkCursor.holder) == holder, col(NetworkCursor.holder) == "",
                col(NetworkCursor.lease_until) < now))
        if db.is_postgres:
            query = query.with_for_update(skip_locked=True)
        cursor = (await session.exec(query)).first()
        if cursor is None:
            return None
        cursor.holder, cursor.lease_until = holder, now + LEASE_SECONDS
        session.add(cursor)
        return cursor


async def fence(session: AsyncSession, network: str, holder: str, *, postgres: bool) -> NetworkCursor:
    """The cursor, locked for this transaction and its lease extended, if `holder` still holds it."""
    query = select(NetworkCursor).where(NetworkCursor.network == network)
    if postgres:
        query = query.with_for_update()
    cursor = (await session.exec(query)).first()
    if cursor is None or cursor.holder != holder:
        raise LeaseLost(f"{network}: lease taken over by {cursor.holder if cursor else 'nobody'}")
    cursor.lease_until = now_of(session) + LEASE_SECONDS
    session.add(cursor)
    return cursor


async def release(db: Database, network: str, holder: str) -> None:
    """Frees the lease at the end of a pass, so the next pass may run in any process without waiting."""
    async with db.transaction() as session:
        cursor = await session.get(NetworkCursor, network)
        if cursor is not None and cursor.holder == holder:
            cursor.holder, cursor.lease_until = "", 0
            session.add(cursor)
