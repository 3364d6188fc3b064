"""`Prepared` statements (server/db/prepared.py) read and write exactly what the session would, in the session's
transaction, with SQLAlchemy's errors; on SQLite a writer's statements run without a hop to the connection's thread.
On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from server.customers.models import Customer
from server.db import Database, sqlite_driver
from server.db.prepared import Prepared
from server.db.sqlite_driver import OneHopConnection
from tests.harness import migrated_database
from tests.unit.db_support import with_merchant

CUSTOMERS = cast(sa.Table, Customer.__table__)  # type: ignore[attr-defined]
INSERT = Prepared(sa.insert(CUSTOMERS))
BY_MERCHANT = Prepared(sa.select(CUSTOMERS.c.id, CUSTOMERS.c.livemode, CUSTOMERS.c.metadata, CUSTOMERS.c.total_payment,
                                 CUSTOMERS.c.deleted_at)
                       .where(CUSTOMERS.c.merchant_id == sa.bindparam("merchant_id"))
                       .order_by(CUSTOMERS.c.id))


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


def customer(customer_id: str, **extra: Any) -> dict[str, Any]:
    values = dict(id=customer_id, merchant_id="mch_1", livemode=True, name="Ann", email="ann@example.com", phone="",
                  uuid="", description="", metadata={"tier": "gold", "n": [1, 2]}, addresses=[], currency="",
                  total_payment=Decimal("12.345678901234567890"), total_refund=Decimal("0"),
                  provider_a_customer_id="", provider_b_customer_id="", created=1, sort_key=1, updated=2,
                  deleted_at=None)
    values.update(extra)
    return values


def model(values: dict[str, Any]) -> Customer:
    values = dict(values)
    values["metadata_"] = values.pop("metadata")
    return Customer(**values)


def run(url: str, work: Any) -> Any:
    return with_merchant(url, work)


async def ids(db: Database) -> list[str]:
    async with db.read() as s:
        return [row[0] for row in await BY_MERCHANT.rows(s, {"merchant_id": "mch_1"})]


def test_a_prepared_insert_is_read_back_by_the_session_with_every_type_exact(url: str) -> None:
    async def work(db: Database) -> Customer | None:
        async with db.transaction() as s:
            await INSERT.write(s, customer("cus_1"))
        async with db.read() as s:
            return await s.get(Customer, "cus_1")

    row = run(url, work)
    assert row is not None
    assert row.metadata_ == {"tier": "gold", "n": [1, 2]}
    assert row.total_payment == Decimal("12.345678901234567890") and row.livemode is True and row.deleted_at is None


def test_a_prepared_select_reads_what_the_session_reads(url: str) -> None:
    async def work(db: Database) -> tuple[list[Any], list[Any]]:
        async with db.transaction() as s:
            s.add(model(customer("cus_1", livemode=False, deleted_at=7)))
        async with db.read() as s:
            prepared = await BY_MERCHANT.rows(s, {"merchant_id": "mch_1"})
            plain = [tuple(r) for r in await s.exec(BY_MERCHANT.statement,  # type: ignore[call-overload]
                                                    params={"merchant_id": "mch_1"})]
        return prepared, plain

    prepared, plain = run(url, work)
    assert prepared == plain == [("cus_1", False, {"tier": "gold", "n": [1, 2]}, Decimal("12.345678901234567890"), 7)]


def test_a_prepared_select_sees_what_the_unit_of_work_has_not_flushed_yet(url: str) -> None:
    async def work(db: Database) -> list[str]:
        async with db.transaction() as s:
            s.add(model(customer("cus_1")))  # pending in the session: flushed first, as autoflush would
            return [row[0] for row in await BY_MERCHANT.rows(s, {"merchant_id": "mch_1"})]

    assert run(url, work) == ["cus_1"]


def test_a_sequence_of_parameters_writes_every_row(url: str) -> None:
    async def work(db: Database) -> list[str]:
        async with db.transaction() as s:
            await INSERT.write(s, [customer("cus_1"), customer("cus_2"), customer("cus_3")])
        return await ids(db)

    assert run(url, work) == ["cus_1", "cus_2", "cus_3"]


def test_a_driver_error_is_sqlalchemys_integrity_error_and_the_unit_of_work_writes_nothing(url: str) -> None:
    async def work(db: Database) -> list[str]:
        async with db.transaction() as s:
            await INSERT.write(s, customer("cus_0"))
        with pytest.raises(IntegrityError):
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_1"))
                await INSERT.write(s, customer("cus_0"))  # the same primary key
        return await ids(db)

    assert run(url, work) == ["cus_0"]


def test_one_failing_unit_among_concurrent_ones_leaves_the_others_committed(url: str) -> None:
    async def work(db: Database) -> list[str]:
        async with db.transaction() as s:
            await INSERT.write(s, customer("cus_00"))

        async def unit(n: int) -> None:
            async with db.transaction() as s:
                await INSERT.write(s, customer(f"cus_{n:02d}"))

        outcomes = await asyncio.gather(*(unit(n) for n in range(32)), return_exceptions=True)
        assert [type(o) for o in outcomes if o is not None] == [IntegrityError]  # cus_00 exists already
        return await ids(db)

    assert run(url, work) == [f"cus_{n:02d}" for n in range(32)]


def test_a_literal_in_the_statement_needs_no_parameter_and_a_missing_one_is_named(url: str) -> None:
    gold = Prepared(sa.select(CUSTOMERS.c.id).where(CUSTOMERS.c.merchant_id == sa.bindparam("merchant_id"),
                                                    CUSTOMERS.c.name == "Ann"))

    async def work(db: Database) -> list[Any]:
        async with db.transaction() as s:
            await INSERT.write(s, customer("cus_1"))
        async with db.read() as s:
            with pytest.raises(TypeError, match="merchant_id"):
                await gold.rows(s, {})
            return await gold.rows(s, {"merchant_id": "mch_1"})

    assert run(url, work) == [("cus_1",)]


def test_an_expanding_list_is_refused() -> None:
    from sqlalchemy.dialects import sqlite

    listed = Prepared(sa.select(CUSTOMERS.c.id).where(CUSTOMERS.c.id.in_(sa.bindparam("ids", expanding=True))))
    with pytest.raises(TypeError, match="ids"):
        listed.plan(sqlite.dialect())


def hops(session: AsyncSession) -> Any:
    async def count() -> int:
        raw = (await session.connection()).sync_connection.connection.dbapi_connection  # type: ignore[union-attr]
        assert isinstance(raw, OneHopConnection)
        return raw._sent[0]
    return count


@pytest.mark.parametrize("url", ["sqlite"], indirect=True)
def test_on_sqlite_a_writers_prepared_statements_run_without_a_thread_hop(url: str) -> None:
    async def work(db: Database) -> int:
        async with db.transaction() as s:
            count = hops(s)
            before = await count()  # the unit's transaction holds the write lock from here
            await INSERT.write(s, customer("cus_1"))
            await BY_MERCHANT.rows(s, {"merchant_id": "mch_1"})
            return await count() - before

    assert run(url, work) == 0


@pytest.mark.parametrize("url", ["sqlite"], indirect=True)
def test_on_sqlite_a_readers_prepared_select_runs_without_a_thread_hop(url: str) -> None:
    async def work(db: Database) -> int:
        async with db.read() as s:
            count = hops(s)
            before = await count()
            await BY_MERCHANT.rows(s, {"merchant_id": "mch_1"})
            return await count() - before

    assert run(url, work) == 0


@pytest.mark.parametrize("url", ["sqlite"], indirect=True)
def test_on_sqlite_a_read_that_would_wait_for_a_lock_is_run_again_on_the_connections_thread(
        url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Readers of a WAL database wait only in rare moments (a recovery, a closing connection's checkpoint, another
    # process in exclusive locking mode), none of which a test can bring about while this process's connections are
    # open: SQLite's answer in those moments, SQLITE_BUSY, is raised here by the read on the loop instead.
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorcode = sqlite3.SQLITE_BUSY  # type: ignore[attr-defined]
    tried: list[str] = []

    def read_busy(_conn: sqlite3.Connection, operation: str, _parameters: Any) -> list[Any]:
        tried.append(operation)
        raise busy

    async def work(db: Database) -> tuple[list[str], int]:
        async with db.transaction() as s:
            await INSERT.write(s, customer("cus_1"))
        monkeypatch.setattr(sqlite_driver, "_read_without_waiting", read_busy)
        async with db.read() as s:
            count = hops(s)
            before = await count()
            rows = await BY_MERCHANT.rows(s, {"merchant_id": "mch_1"})
            return [r[0] for r in rows], await count() - before

    assert run(url, work) == (["cus_1"], 1)
    assert len(tried) == 1


@pytest.mark.parametrize("url", ["sqlite"], indirect=True)
def test_on_sqlite_a_read_on_the_loop_leaves_the_connection_waiting_for_locks_as_before(url: str) -> None:
    # The read on the loop waits for no lock; every later statement on the connection's thread waits as configured.
    async def work(db: Database) -> list[Any]:
        async with db.read() as s:
            await BY_MERCHANT.rows(s, {"merchant_id": "mch_1"})
            return [tuple(r) for r in await s.exec(sa.text("PRAGMA busy_timeout"))]  # type: ignore[call-overload]

    assert run(url, work) == [(sqlite_driver.BUSY_TIMEOUT_MS,)]


@pytest.mark.parametrize("url", ["sqlite"], indirect=True)
def test_on_sqlite_without_group_commit_a_prepared_write_still_joins_the_units_transaction(url: str) -> None:
    async def work(_db: Database) -> list[str]:
        db = Database(url, group_commit=False)
        try:
            with pytest.raises(RuntimeError):
                async with db.transaction() as s:
                    await INSERT.write(s, customer("cus_1"))
                    raise RuntimeError("the unit fails after the write")
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_2"))
            return await ids(db)
        finally:
            await db.close()

    assert run(url, work) == ["cus_2"]
