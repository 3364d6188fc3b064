"""`exact_sum(column)`: an exact SQL SUM of a `DecimalText` column on both databases.

PostgreSQL stores those amounts as NUMERIC, whose SUM is exact. SQLite stores them as decimal strings (its NUMERIC is
REAL, /work/shared/STACK.md), and its own SUM would turn them into floats: on SQLite the sum is `decimal_sum`, an
aggregate function registered on every connection (`register`) that adds the strings as Decimals and answers a
decimal string. Either way the query is one `SELECT … SUM … GROUP BY` run by the database, and the result comes back
as a Decimal through `DecimalText`.
"""

from __future__ import annotations

import decimal
import sqlite3
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from server.db.types import DecimalText
from server.money import MONEY

# An addition that would round raises instead (Inexact trapped): a sum is exact or it is an error.
_EXACT = MONEY.copy()
_EXACT.traps[decimal.Inexact] = True
_EXACT.traps[decimal.Rounded] = True


class DecimalSum:
    """SQLite aggregate: the exact sum of decimal strings (NULLs left out; NULL when there are none, like SUM)."""

    def __init__(self) -> None:
        self.total: Decimal | None = None

    def step(self, value: Any) -> None:
        if value is None:
            return
        amount = Decimal(str(value)) if not isinstance(value, str) else Decimal(value)
        self.total = amount if self.total is None else _EXACT.add(self.total, amount)

    def finalize(self) -> str | None:
        return None if self.total is None else format(self.total, "f")


def register(conn: sqlite3.Connection) -> None:
    """Call on the connection's own thread, once per connection."""
    conn.create_aggregate("decimal_sum", 1, DecimalSum)  # type: ignore[arg-type]


class exact_sum(FunctionElement[Decimal]):  # named like the SQL function it stands for
    type = DecimalText()
    inherit_cache = True
    name = "exact_sum"


@compiles(exact_sum)
def _sqlite(element: exact_sum, compiler: SQLCompiler, **kw: Any) -> str:
    return f"decimal_sum({compiler.process(element.clauses, **kw)})"


@compiles(exact_sum, "postgresql")
def _postgresql(element: exact_sum, compiler: SQLCompiler, **kw: Any) -> str:
    return f"sum({compiler.process(element.clauses, **kw)})"
