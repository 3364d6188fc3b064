"""PostgreSQL write units of work (server/db/pg_pipeline.py): BEGIN and prepared writes wait for the next statement
that needs an answer and go with it in one round trip, and every unit of work is still exactly one server
transaction. Round trips are counted in libpq's protocol trace (one ReadyForQuery each)."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import psycopg
import pytest
import sqlalchemy as sa
from google.protobuf.struct_pb2 import Struct, Value
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.customers.models import Customer
from server.db import Database
from server.db.prepared import Prepared
from server.errors import InvalidArgument
from server.events import outbox
from server.ids import new_id
from server.webhooks.models import Delivery, WebhookEndpoint
from server.webhooks.queue import fan_out
from tests.harness import migrated_database
from tests.unit.db.test_prepared_statements import customer
from tests.unit.db_support import MERCHANT_ID, cancel_once_started, left_in_transaction, with_merchant

CUSTOMERS = cast(sa.Table, Customer.__table__)  # type: ignore[attr-defined]
INSERT = Prepared(sa.insert(CUSTOMERS))
NAMES = Prepared(sa.select(CUSTOMERS.c.name).where(CUSTOMERS.c.merchant_id == sa.bindparam("merchant_id"))
                 .order_by(CUSTOMERS.c.id))
SLEEP = Prepared(sa.select(sa.func.pg_sleep(sa.bindparam("seconds", type_=sa.Float))))


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    yield from migrated_database("postgresql", tmp_path)


class Trace:
    """libpq's trace of one connection, from `traced` until `stop`: what the client sent and the server answered."""

    def __init__(self, pgconn: Any) -> None:
        # Open for the trace's life, which spans the unit of work's commit; closed with the object.
        self.file = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self.pgconn = pgconn
        pgconn.trace(self.file.fileno())
        pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)

    def stop(self) -> None:
        self.pgconn.untrace()  # also writes out what libpq still buffers

    def round_trips(self) -> int:
        return self._text().count("ReadyForQuery")

    def sent(self) -> list[str]:
        """The SQL of each statement sent, in order."""
        out = []
        for line in self._text().splitlines():
            if line.startswith("F\t") and "\tQuery\t" in line:  # simple protocol: F len Query "sql"
                out.append(line.split('"')[1])
            elif line.startswith("F\t") and "\tParse\t" in line:  # F len Parse "name" "sql" …
                out.append(line.split('"')[3])
        return out

    def _text(self) -> str:
        self.file.seek(0)
        return self.file.read()


async def traced(session: AsyncSession) -> Trace:
    """A trace of the unit of work's connection, through its commit: `stop` it once the unit of work has ended."""
    conn = await session.connection()
    return Trace(conn.sync_connection.connection.driver_connection.pgconn)  # type: ignore[union-attr]


async def names(db: Database) -> list[str]:
    async with db.read() as s:
        return [row[0] for row in await NAMES.rows(s, {"merchant_id": MERCHANT_ID})]


def test_a_create_sends_begin_its_writes_and_its_read_in_one_round_trip_then_commits(url: str) -> None:
    async def work(db: Database) -> tuple[int, list[str], list[str]]:
        async with db.transaction() as s:
            trace = await traced(s)
            await INSERT.write(s, customer("cus_1"))
            await INSERT.write(s, customer("cus_2", name="Bo"))
            read = [row[0] for row in await NAMES.rows(s, {"merchant_id": MERCHANT_ID})]
        trace.stop()
        return trace.round_trips(), trace.sent(), read

    round_trips, sent, read = with_merchant(url, work)
    assert round_trips == 2  # BEGIN, the INSERTs and the SELECT; then COMMIT
    assert [sql.split()[0] for sql in sent] == ["BEGIN", "INSERT", "INSERT", "SELECT", "COMMIT"]
    assert read == ["Ann", "Bo"]


def test_writes_still_queued_at_the_commit_go_with_it_in_one_round_trip(url: str) -> None:
    async def work(db: Database) -> tuple[int, list[str], list[str]]:
        async with db.transaction() as s:
            trace = await traced(s)
            await INSERT.write(s, customer("cus_1"))
            await INSERT.write(s, [customer("cus_2", name="Bo"), customer("cus_3", name="Cy")])
        trace.stop()
        return trace.round_trips(), trace.sent(), await names(db)

    round_trips, sent, committed = with_merchant(url, work)
    assert round_trips == 1
    assert [sql.split()[0] for sql in sent] == ["BEGIN", "INSERT", "INSERT", "COMMIT"]
    assert committed == ["Ann", "Bo", "Cy"]


def test_a_unit_of_work_is_one_server_transaction_whatever_runs_its_statements(url: str) -> None:
    async def work(db: Database) -> list[Any]:
        async with db.transaction() as s:
            first = (await s.execute(sa.text("SELECT txid_current()"))).scalar_one()
            await INSERT.write(s, customer("cus_1"))
            await NAMES.rows(s, {"merchant_id": MERCHANT_ID})
            second = (await s.execute(sa.text("SELECT txid_current()"))).scalar_one()
            isolation = (await s.execute(sa.text("SHOW transaction_isolation"))).scalar_one()
        return [first, second, isolation]

    first, second, isolation = with_merchant(url, work)
    assert first == second
    assert isolation == "read committed"


def test_a_read_only_unit_of_work_still_reads_one_snapshot(url: str) -> None:
    async def work(db: Database) -> str:
        async with db.read() as s:
            return str((await s.execute(sa.text("SHOW transaction_isolation"))).scalar_one())

    assert with_merchant(url, work) == "repeatable read"


def test_a_read_only_unit_of_work_sends_its_begin_with_its_first_read(url: str) -> None:
    async def work(db: Database) -> tuple[int, list[str]]:
        async with db.read() as s:
            trace = await traced(s)
            await NAMES.rows(s, {"merchant_id": MERCHANT_ID})
        trace.stop()
        return trace.round_trips(), trace.sent()

    round_trips, sent = with_merchant(url, work)
    assert round_trips == 2  # BEGIN and the SELECT; then COMMIT
    assert sent[0] == "BEGIN ISOLATION LEVEL REPEATABLE READ"
    assert [sql.split()[0] for sql in sent] == ["BEGIN", "SELECT", "COMMIT"]


def test_the_orm_sees_a_queued_write_of_its_own_unit_of_work(url: str) -> None:
    async def work(db: Database) -> str | None:
        async with db.transaction() as s:
            await INSERT.write(s, customer("cus_1", name="Queued"))
            row = await s.get(Customer, "cus_1")
            return row.name if row else None

    assert with_merchant(url, work) == "Queued"


def test_a_refusal_after_queued_writes_commits_none_of_them(url: str) -> None:
    async def work(db: Database) -> list[str]:
        with pytest.raises(InvalidArgument):
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_1"))
                await NAMES.rows(s, {"merchant_id": MERCHANT_ID})  # sent: the server holds it in its transaction
                await INSERT.write(s, customer("cus_2", name="Bo"))  # still queued
                raise InvalidArgument("name: refused")
        return await names(db)

    assert with_merchant(url, work) == []


def test_a_queued_writes_violation_is_raised_by_the_read_that_sends_it(url: str) -> None:
    async def work(db: Database) -> tuple[bool, list[str]]:
        raised_by_read = False
        with pytest.raises(IntegrityError):
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_1"))
                await INSERT.write(s, customer("cus_1", name="Twice"))
                try:
                    await NAMES.rows(s, {"merchant_id": MERCHANT_ID})
                except IntegrityError:
                    raised_by_read = True
                    raise
        return raised_by_read, await names(db)

    assert with_merchant(url, work) == (True, [])


def test_a_queued_writes_violation_is_raised_alone_without_the_drivers_terminating_warning(
        url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The violation is the one error an operator sees: psycopg would also log "error ignored terminating" for the
    pipeline's end, which fails after an error inside its block."""
    async def work(db: Database) -> str:
        with pytest.raises(IntegrityError) as raised:
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_1"))
                await INSERT.write(s, customer("cus_1", name="Twice"))
                for n in range(300):  # the server's answer to the violation arrives while these are still sent
                    await INSERT.write(s, customer(f"cus_more_{n}"))
                await NAMES.rows(s, {"merchant_id": MERCHANT_ID})
        return str(raised.value.orig)

    with caplog.at_level(logging.WARNING, logger="psycopg"):
        error = with_merchant(url, work)
    assert "duplicate key" in error
    assert [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")] == []


def test_a_rolled_back_queue_is_never_sent_by_the_next_unit_of_work_on_its_connection(url: str) -> None:
    async def work(db: Database) -> tuple[list[str], list[str]]:
        with pytest.raises(InvalidArgument):
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_1", name="Dropped"))
                raise InvalidArgument("name: refused")
        async with db.transaction() as s:
            trace = await traced(s)
            await INSERT.write(s, customer("cus_2", name="Kept"))
        trace.stop()
        return trace.sent(), await names(db)

    sent, committed = with_merchant(url, work)
    assert len(sent) == 3  # BEGIN, the one INSERT, COMMIT
    assert committed == ["Kept"]


def test_a_unit_of_work_cancelled_mid_pipeline_commits_nothing_and_holds_no_transaction(url: str) -> None:
    async def work(db: Database) -> tuple[list[str], int, int]:
        async def slow(started: asyncio.Event) -> None:
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_1", name="Cancelled"))
                started.set()
                await SLEEP.rows(s, {"seconds": 2.0})

        await cancel_once_started(slow)
        async with asyncio.timeout(15):
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_1", name="Next"))
        return await names(db), await left_in_transaction(db), db.engine.pool.checkedout()

    assert with_merchant(url, work) == (["Next"], 0, 0)


def test_an_event_and_its_webhook_attempts_are_written_and_committed_in_one_round_trip(url: str) -> None:
    async def work(db: Database) -> tuple[int, list[str], int]:
        outbox.subscribe(db, fan_out)
        async with db.transaction() as s:
            s.add(WebhookEndpoint(id=new_id("we"), merchant_id=MERCHANT_ID, livemode=False, url="https://e.test/h",
                                  enabled_events=["*"], secret="sealed", api_version=outbox.API_VERSION, created=0,
                                  updated=0))
        async with db.transaction() as s:
            trace = await traced(s)
            await INSERT.write(s, customer("cus_1", livemode=False))
            await outbox.record(s, merchant_id=MERCHANT_ID, livemode=False, type="customer.created",
                                resource=Struct(fields={"id": Value(string_value="cus_1")}))
        trace.stop()
        async with db.read() as s:
            attempts = len(list(await s.exec(select(Delivery))))
        return trace.round_trips(), [sql.split()[0] for sql in trace.sent()], attempts

    round_trips, sent, attempts = with_merchant(url, work)
    assert round_trips == 1
    assert sent == ["BEGIN", "INSERT", "INSERT", "INSERT", "COMMIT"]  # the customer, its event, the attempts
    assert attempts == 1


def test_a_connection_lost_mid_unit_of_work_is_an_operational_error_and_the_next_unit_of_work_reconnects(
        url: str) -> None:
    async def work(db: Database) -> tuple[bool, list[str], int]:
        lost = False
        try:
            async with db.transaction() as s:
                pid = (await s.execute(sa.text("SELECT pg_backend_pid()"))).scalar_one()
                await INSERT.write(s, customer("cus_1", name="Lost"))
                async with db.engine.connect() as other:
                    await other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
                await NAMES.rows(s, {"merchant_id": MERCHANT_ID})  # sends the queued INSERT to a closed backend
        except OperationalError:
            lost = True
        async with asyncio.timeout(15):
            async with db.transaction() as s:
                await INSERT.write(s, customer("cus_2", name="Next"))
        return lost, await names(db), db.engine.pool.checkedout()

    assert with_merchant(url, work) == (True, ["Next"], 0)


def test_a_connection_reconnected_after_an_invalidation_still_begins_its_transactions(url: str) -> None:
    async def work(db: Database) -> tuple[Any, Any]:
        async with db.engine.connect() as conn:
            await conn.execute(sa.text("SELECT 1"))
            await conn.invalidate()  # the pool reconnects it on next use, and clears what it held for it
            await conn.rollback()
            async with conn.begin():
                first = (await conn.execute(sa.text("SELECT txid_current()"))).scalar_one()
                second = (await conn.execute(sa.text("SELECT txid_current()"))).scalar_one()
        return first, second

    first, second = with_merchant(url, work)
    assert first == second
