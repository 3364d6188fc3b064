"""`one_of(column, values)`: `column IN (values)` whose statement text does not depend on how many values there are.

SQLAlchemy writes an IN list as one parameter per value, so on PostgreSQL every length is another statement text:
planned again and never prepared by the driver. Webhook claims of varying size made 86 texts of each of their
statements in one bench run (bench/RESULTS.md, twelfth session). On PostgreSQL it is
`column = ANY(CAST(:values AS type[]))`, one parameter, one text; SQLite keeps the IN list (it has no arrays).
"""

from __future__ import annotations

from collections.abc import Sequence
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
