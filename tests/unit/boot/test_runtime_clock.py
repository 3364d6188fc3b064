"""One clock for all domain time: a runtime's rows are stamped on its clock (the one a test moves), never on the
wall clock, so what it stamps and what its jobs compare are the same time."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import sqlalchemy as sa
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession

import migrations.tables  # noqa: F401  (fills the metadata)
from server.boot.composition import build_runtime, compose
from server.clock import now_of
from server.config import load_settings
from server.context import Caller
from server.db import Database
from server.events.models import Event
from server.merchants.service import create_merchant
from server.payment_intents import service
from server.runtime import Runtime
from tests.clock import SetClock
from tests.harness import TEST_NETWORKS

MOVED = 2_000_000_000  # 2033: far from any wall clock this test runs on


def runtime(tmp_path: Path, clock: SetClock) -> Runtime:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = sa.create_engine(url)
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    networks = tmp_path / "networks.toml"
    networks.write_text(TEST_NETWORKS)
    return compose(load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_NETWORKS": str(networks)}),
                   var_dir=tmp_path / "var", clock=clock)


def test_a_runtime_on_a_moved_clock_stamps_the_intents_and_events_it_creates_with_that_clocks_time(
        tmp_path: Path) -> None:
    rt = runtime(tmp_path, SetClock(MOVED))

    async def scenario() -> tuple[int, int, int, list[int]]:
        async with rt.db.transaction() as s:
            merchant, _ = await create_merchant(s, "Shop")
        async with rt.db.transaction() as s:
            created = await service.create(s, rt, Caller(merchant.id, False, "secret"),
                                           pb.CreatePaymentIntentRequest(amount="10", currency="USD",
                                                                         merchant_order_id="order-1"))
        async with rt.db.read() as s:
            events = list(await s.exec(select(Event.created).where(Event.object_id == created.intent.id)))
        return merchant.created, created.intent.created, created.intent.updated, events

    try:
        merchant_created, intent_created, intent_updated, events = asyncio.run(scenario())
    finally:
        asyncio.run(rt.db.close())
    assert merchant_created == intent_created == intent_updated == MOVED
    assert events and all(created == MOVED for created in events)


def test_every_unit_of_work_carries_the_runtimes_clock(tmp_path: Path) -> None:
    clock = SetClock(MOVED)
    rt = runtime(tmp_path, clock)

    async def readings() -> tuple[int, int]:
        async with rt.db.transaction() as written, rt.db.read() as read:
            clock.at(MOVED + 60)  # read on each call: a moved clock is seen at once
            return now_of(written), now_of(read)

    try:
        assert asyncio.run(readings()) == (MOVED + 60, MOVED + 60)
    finally:
        asyncio.run(rt.db.close())


def test_a_runtime_refuses_a_database_on_another_clock(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'p.db'}")  # the system clock
    try:
        with pytest.raises(ValueError, match="clock"):
            build_runtime(load_settings({"PAYGATE_DATABASE_URL": db.url}), db=db, var_dir=tmp_path / "var",
                          clock=SetClock(MOVED))
    finally:
        asyncio.run(db.close())


def test_a_session_not_opened_by_a_database_has_no_time_to_give() -> None:
    with pytest.raises(LookupError):
        now_of(AsyncSession())
