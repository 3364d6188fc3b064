"""Allocation of accounts and address indexes in the database, and the addresses they give.

Counters are bumped with one `INSERT … ON CONFLICT DO UPDATE … RETURNING` / `UPDATE … RETURNING` statement: the row
lock (PostgreSQL) or the single writer (SQLite) makes two processes receive two different numbers.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.db.sets import on_postgres
from server.rails.base import KeyScheme
from server.wallet.mnemonics import Keys
from server.wallet.models import WalletAccount, WalletCounter


def _insert(session: AsyncSession, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
    return (postgresql.insert if on_postgres(session) else sqlite.insert)(table)


async def _next_account_number(session: AsyncSession) -> int:
    table = WalletCounter.__table__  # type: ignore[attr-defined]
    stmt = _insert(session, table).values(name="accounts", value=1)
    stmt = stmt.on_conflict_do_update(index_elements=["name"], set_={"value": table.c.value + 1})
    return int((await session.exec(stmt.returning(table.c.value))).scalar_one())


async def account_of(session: AsyncSession, merchant_id: str, livemode: bool) -> int:
    """The merchant's account number in this mode, allocated on first use and never changed."""
    row = await session.get(WalletAccount, (merchant_id, livemode))
    if row is None:
        number = await _next_account_number(session)
        table = WalletAccount.__table__  # type: ignore[attr-defined]
        await session.exec(_insert(session, table)
                              .values(merchant_id=merchant_id, livemode=livemode, account=number, next_index=0,
                                      created=now_of(session))
                              .on_conflict_do_nothing(index_elements=["merchant_id", "livemode"]))
        row = await session.get(WalletAccount, (merchant_id, livemode), populate_existing=True)
        assert row is not None
    return row.account


async def next_deposit_index(session: AsyncSession, merchant_id: str, livemode: bool) -> tuple[int, int]:
    """(account, index) of a deposit address no one has been given before."""
    account = await account_of(session, merchant_id, livemode)
    stmt = (sa.update(WalletAccount)
            .where(col(WalletAccount.merchant_id) == merchant_id, col(WalletAccount.livemode) == livemode)
            .values(next_index=col(WalletAccount.next_index) + 1)
            .returning(col(WalletAccount.next_index)))
    index = int((await session.exec(stmt)).scalar_one()) - 1
    return account, index


async def new_deposit_address(session: AsyncSession, keys: Keys, scheme: KeyScheme, merchant_id: str,
                              livemode: bool) -> tuple[str, int]:
    """A fresh deposit address of the family `scheme` derives for (its stored form) and its index."""
    mnemonic = keys.mnemonic(livemode)  # before the counter moves: live mode without a seed refuses first
    account, index = await next_deposit_index(session, merchant_id, livemode)
    return scheme.deposit_address(mnemonic, account, index), index


async def treasury_address(session: AsyncSession, keys: Keys, scheme: KeyScheme, merchant_id: str, livemode: bool, *,
                           allocate: bool = True) -> str | None:
    """The merchant's treasury in this mode on the family `scheme` derives for (refunds, sweeps and payouts are paid
    from it), in its stored form; empty in live mode while no mnemonic is configured.

    With `allocate=False` (a read-only unit of work) None means the account is not allocated yet."""
    if livemode and not keys.live_ready:
        return ""
    if allocate:
        account = await account_of(session, merchant_id, livemode)
    else:
        row = await session.get(WalletAccount, (merchant_id, livemode))
        if row is None:
            return None
        account = row.account
    return scheme.treasury_address(keys.mnemonic(livemode), account)
