"""Column types that keep money exact on both databases."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect


class DecimalText(sa.types.TypeDecorator[Decimal]):
    """A Decimal stored exactly: NUMERIC on PostgreSQL, a decimal string on SQLite (whose NUMERIC is REAL)."""

    impl = sa.String(80)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(sa.Numeric(asdecimal=True))
        return dialect.type_descriptor(sa.String(80))

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if dialect.name == "postgresql":
            return Decimal(value)
        return format(Decimal(value), "f")

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        return None if value is None else Decimal(str(value))


JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
