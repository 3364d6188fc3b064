"""`read_by_key` (server/db/construct.py): what a read-only unit of work reads by primary key is the row
`session.get` reads, as an object the session never writes back. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import SQLModel

from server.context import Caller
from server.customers.models import Customer
from server.db import Database
from server.db.construct import read_by_key
from server.scoping import get_owned
from server.wallet.models import WalletAccount
from tests.harness import migrated_database
from tests.unit.db_support import with_merchant


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


def fields(obj: SQLModel | None) -> dict[str, Any]:
    assert obj is not None
    return {name: getattr(obj, name) for name in type(obj).model_fields}


def run(url: str, work: Any) -> Any:
    async def with_customer(db: Database) -> Any:
        async with db.transaction() as s:
            s.add(Customer(id="cus_1", merchant_id="mch_1", livemode=True, name="Ann", email="ann@example.com",
                           metadata_={"tier": "gold"}, total_payment=Decimal("1.000000000000000001"),
                           created=1, updated=2, deleted_at=None))
        return await work(db)
    return with_merchant(url, with_customer)


def test_a_row_read_by_key_has_the_values_session_get_reads(url: str) -> None:
    async def work(db: Database) -> tuple[Customer | None, Customer | None]:
        async with db.read() as s:
            read = await read_by_key(s, Customer, "cus_1")
        async with db.read() as s:
            got = await s.get(Customer, "cus_1")
        return read, got

    read, got = run(url, work)
    assert fields(read) == fields(got)
    assert read is not None and read.total_payment == Decimal("1.000000000000000001")


def test_an_unknown_key_reads_nothing(url: str) -> None:
    async def work(db: Database) -> Customer | None:
        async with db.read() as s:
            return await read_by_key(s, Customer, "cus_nope")

    assert run(url, work) is None


def test_a_row_read_by_key_is_never_written_back(url: str) -> None:
    async def work(db: Database) -> str:
        async with db.read() as s:
            read = await read_by_key(s, Customer, "cus_1")
            assert read is not None
            read.name = "Changed"
            assert read not in s
        async with db.read() as s:
            again = await s.get(Customer, "cus_1")
            assert again is not None
            return again.name

    assert run(url, work) == "Ann"


def test_a_model_keyed_by_several_columns_is_read_with_session_get(url: str) -> None:
    async def work(db: Database) -> WalletAccount | None:
        async with db.transaction() as s:
            s.add(WalletAccount(merchant_id="mch_1", livemode=False, account=7, created=1))
        async with db.read() as s:
            return await read_by_key(s, WalletAccount, ("mch_1", False))

    found = run(url, work)
    assert found is not None and found.merchant_id == "mch_1"


def test_a_read_only_units_owned_object_is_found_and_another_merchants_is_not(url: str) -> None:
    async def work(db: Database) -> tuple[str, str]:
        from server.errors import NotFound

        async with db.read() as s:
            mine = await get_owned(s, Customer, "cus_1", Caller("mch_1", True, "secret"), "customer")
            with pytest.raises(NotFound) as refused:
                await get_owned(s, Customer, "cus_1", Caller("mch_2", True, "secret"), "customer")
        return mine.id, str(refused.value)

    mine, refused = run(url, work)
    assert mine == "cus_1" and "cus_1" in refused
