"""Page-style pagination: `page` from 0 and `page_size`, with the defaults of DESIGN.md §12, and the one list query
(count, newest first, page) every list endpoint runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import sqlalchemy as sa
from google.protobuf.message import Message
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.errors import invalid

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100


@dataclass(frozen=True)
class Page:
    page: int
    size: int

    @property
    def offset(self) -> int:
        return self.page * self.size


def page_of(request: Message, *, max_size: int = MAX_PAGE_SIZE) -> Page:
    """A missing `page` is 0 and a missing `page_size` 10; a present but invalid value is refused."""
    page = request.page if request.HasField("page") else 0  # type: ignore[attr-defined]
    size = request.page_size if request.HasField("page_size") else DEFAULT_PAGE_SIZE  # type: ignore[attr-defined]
    if page < 0:
        raise invalid("page", "must be 0 or more")
    if not 1 <= size <= max_size:
        raise invalid("page_size", f"must be from 1 to {max_size}")
    return Page(page, size)


@dataclass(frozen=True)
class Slice:
    """Rows `offset` to `offset + size`: the window of the offset/limit lists (subscriptions, invoices)."""

    offset: int
    size: int


class Listed(Protocol):
    sort_key: int


L = TypeVar("L", bound=Listed)


async def newest_first(session: AsyncSession, model: type[L], where: Sequence[Any],
                       page: Page | Slice) -> tuple[list[L], int]:
    """One page of `model`'s rows matching `where`, newest first (by `sort_key`), and how many match in all: the
    query every list endpoint runs."""
    total = (await session.exec(select(sa.func.count()).select_from(model).where(*where))).one()
    rows = await session.exec(select(model).where(*where).order_by(col(model.sort_key).desc())
                              .offset(page.offset).limit(page.size))
    return list(rows), int(total)
