"""Renewals by two real scheduler processes (`paygate serve --only scheduler`) sharing one PostgreSQL database:
2,000 due subscriptions get 2,000 renewal invoices, none twice, and both processes take part (subscriptions are
claimed with FOR UPDATE SKIP LOCKED; the unique cycle_key would refuse a second invoice for one cycle anyway).

Why 2,000 and not the issue's 500: one pass renews everything due, and 500 take a pass about 1.5 s on an idle
machine, so a process that started a little later could find nothing left and the test would prove nothing about
two at once; 2,000 keep the first pass busy for several seconds, past the other process's first pass."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import col, select

from server.db import Database
from server.ids import new_id
from server.invoices.models import Invoice
from server.subscriptions.models import Subscription
from tests.conftest import http_client
from tests.e2e.payment_intents.test_expiry_processes import SchedulerProcess, wait_started
from tests.e2e.subscriptions.support import DAY, club, customer
from tests.harness import Service, start, stop

DUE = 2000


@pytest.fixture(scope="module")
def api_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """PostgreSQL only, and no scheduler: the test's own scheduler processes are the only ones renewing."""
    svc = start("postgresql", Path(tmp_path_factory.mktemp("paygate-renewal-processes")), only=("http", "grpc"))
    yield svc
    stop(svc)


@pytest.fixture
def schedulers(api_service: Service) -> Iterator[list[SchedulerProcess]]:
    started: list[SchedulerProcess] = []
    yield started
    for s in started:
        s.stop()


def seed(service: Service, merchant_id: str, c: dict[str, Any], customer_id: str, count: int) -> list[str]:
    """`count` active monthly subscriptions whose period ended a minute ago."""
    async def insert() -> list[str]:
        db = Database(service.database_url)
        now = db.clock.now()
        start_, end = now - 31 * DAY, now - 60
        rows = [Subscription(id=new_id("sub"), merchant_id=merchant_id, livemode=False, customer_id=customer_id,
                             product_id=c["product"]["id"], variant_id=c["small"], selling_plan_id=c["monthly"],
                             currency="USD", status="active", billing_cycle_anchor=start_, current_period_start=start_,
                             current_period_end=end, current_cycle_number=1, renew_at=end, due_at=end,
                             created_at=start_, updated_at=start_) for _ in range(count)]
        try:
            async with db.transaction() as s:
                s.add_all(rows)
        finally:
            await db.close()
        return [r.id for r in rows]
    return asyncio.run(insert())


def renewal_invoices(service: Service, ids: list[str]) -> Counter[tuple[str, int]]:
    async def query() -> Counter[tuple[str, int]]:
        db = Database(service.database_url)
        try:
            async with db.read() as s:
                rows = await s.exec(select(Invoice.subscription_id, Invoice.cycle_number)
                                    .where(col(Invoice.subscription_id).in_(ids)))
                return Counter((sub, n) for sub, n in rows)
        finally:
            await db.close()
    return asyncio.run(query())


def waiting(service: Service, ids: list[str]) -> int:
    """Subscriptions still due (renew_at not cleared by their renewal)."""
    async def query() -> int:
        db = Database(service.database_url)
        try:
            async with db.read() as s:
                return int((await s.exec(select(sa.func.count()).select_from(Subscription).where(
                    col(Subscription.id).in_(ids), col(Subscription.renew_at).is_not(None)))).one())
        finally:
            await db.close()
    return asyncio.run(query())


def renewed_by(process: SchedulerProcess) -> int:
    return sum(int(r["count"]) for r in process.records() if r.get("msg") == "subscriptions renewed")


@pytest.mark.timeout(600)
def test_two_schedulers_on_postgresql_renew_2000_subscriptions_with_one_invoice_each(
        api_service: Service, schedulers: list[SchedulerProcess], tmp_path: Path) -> None:
    merchant = api_service.create_merchant()
    with http_client(api_service, merchant["test"]["secret_key"]) as api:
        c, who = club(api), customer(api)
    ids = seed(api_service, merchant["merchant_id"], c, who["id"], DUE)
    pair = [SchedulerProcess(api_service, tmp_path), SchedulerProcess(api_service, tmp_path)]
    schedulers.extend(pair)
    wait_started(pair)
    deadline = time.monotonic() + 480
    while waiting(api_service, ids) and time.monotonic() < deadline:
        time.sleep(1)
    time.sleep(6)  # one more job interval for both: a second renewal of a cycle would have happened by now
    for s in pair:
        s.stop()
    invoices = renewal_invoices(api_service, ids)
    assert len(invoices) == DUE and set(invoices) == {(i, 2) for i in ids}
    assert [k for k, n in invoices.items() if n > 1] == []
    by_process = [renewed_by(s) for s in pair]
    assert min(by_process) > 0 and sum(by_process) == DUE, by_process
