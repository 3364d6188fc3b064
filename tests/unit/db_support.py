"""Running a scenario against a fresh `Database` of a migrated database that holds one merchant."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from server.db import Database
from server.merchants.models import Merchant

T = TypeVar("T")
MERCHANT_ID = "mch_1"


def with_merchant(url: str, work: Callable[[Database], Awaitable[T]]) -> T:
    """`work(db)` on a `Database` of `url` once merchant `mch_1` is committed; the database is closed after."""
    async def go() -> T:
        db = Database(url)
        try:
            async with db.transaction() as s:
                s.add(Merchant(id=MERCHANT_ID, name="M", created=0))
            return await work(db)
        finally:
            await db.close()
    return asyncio.run(go())
