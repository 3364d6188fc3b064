"""`one_of(column, values)`: `column IN (values)` whose statement text does not depend on how many values there are.

SQLAlchemy writes an IN list as one parameter per value, so on PostgreSQL every length is another statement text:
planned again and never prepared by the driver. Webhook claims of varying size made 86 texts of each of their
statements in one bench run (bench/RESULTS.md, twelfth session). On PostgreSQL it is
`column = ANY(CAST(:values AS type[]))`, one parameter, one text; SQLite keeps the IN list (it has no arrays).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession


def one_of(column: Any, values: Sequence[Any], *, postgres: bool) -> sa.ColumnElement[bool]:
    if not postgres:
        return column.in_(list(values))
    array = sa.cast(sa.bindparam(None, list(values)), ARRAY(column.type))
    return column == sa.any_(array)


def on_postgres(session: AsyncSession) -> bool:
    return session.get_bind().dialect.name == "postgresql"


IN_CHUNK = 500  # ids per IN (…) list: well under SQLite's bound on a statement's parameters


def chunks(items: Sequence[str], size: int = IN_CHUNK) -> Iterator[Sequence[str]]:
    """`items` in slices of at most `size`: one IN (…) list each."""
    for i in range(0, len(items), size):
        yield items[i:i + size]
