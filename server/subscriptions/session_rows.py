"""Rows read many times in one unit of work (a renewal sweep handles a hundred subscriptions of one product and
merchant), kept for the life of the session: SQLAlchemy's identity map holds rows weakly, so a row nobody
references is read again on the next `get`. Only rows this package never writes in the same transaction."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession

T = TypeVar("T")


async def get(session: AsyncSession, model: type[T], row_id: str) -> T | None:
    cache: dict[tuple[type[Any], str], Any] = session.info.setdefault("paygate.rows", {})
    key = (model, row_id)
    if key not in cache:
        cache[key] = await session.get(model, row_id)
    return cache[key]
