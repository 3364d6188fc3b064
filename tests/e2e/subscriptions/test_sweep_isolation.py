"""One subscription whose step fails (its selling plan is gone, its cycle was invoiced already) does not stop the
renewal sweep for anyone else: the others in its batch, and every later batch, are renewed; the failing one is
logged by id and put off (its `due_at` moves forward), never dropped, so it renews once it is repaired. The sweep
is called in-process on SQLite and PostgreSQL (the scheduler's own sweep through a real service is in
test_sweep_isolation_service.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import col, select

from server.config import load_settings
from server.customers.models import Customer
from server.db import Database
from server.ids import new_id
from server.invoices.models import Invoice
from server.mail import FileMailer
from server.merchants.models import Merchant
from server.products.models import Product, ProductVariant, SellingPlan
from server.selling_plans.membership import own_group
from server.subscriptions import renewal
from server.subscriptions.collect import Collector
from server.subscriptions.models import Subscription
from tests.harness import migrated_database

DAY = 86_400
HOUR = 3_600


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


@dataclass
class Shop:
    merchant_id: str
    product_id: str
    variant_id: str
    plan_id: str
    customer_id: str


async def shop(db: Database, name: str) -> Shop:
    """A merchant selling a 10.00 monthly plan, and one customer of theirs."""
    now = db.clock.now()
    s = Shop(new_id("mch"), new_id("prod"), new_id("var"), new_id("sp"), new_id("cus"))
    async with db.transaction() as session:
        session.add(Merchant(id=s.merchant_id, name=name, created=now))
        await session.flush()
        product = Product(id=s.product_id, merchant_id=s.merchant_id, livemode=False, name="Beans",
                          default_currency="USD", created_at=now, updated_at=now)
        session.add(product)
        await session.flush()
        session.add(ProductVariant(id=s.variant_id, product_id=s.product_id, position=0, price=Decimal("10.00"),
                                   currency="USD"))
        group = await own_group(session, product)
        session.add(SellingPlan(id=s.plan_id, group_id=group.id, merchant_id=s.merchant_id, livemode=False,
                                position=0, name="Monthly", billing_cycle="month"))
        session.add(Customer(id=s.customer_id, merchant_id=s.merchant_id, livemode=False,
                             email=f"{s.customer_id}@example.com", created=now, updated=now))
    return s


async def due_subscriptions(db: Database, s: Shop, count: int, *, ended_ago: int,
                            plan_id: str | None = None) -> list[str]:
    """`count` active crypto subscriptions of `s` whose monthly period ended `ended_ago` seconds ago."""
    now = db.clock.now()
    start, end = now - ended_ago - 30 * DAY, now - ended_ago
    subs = [Subscription(
        id=new_id("sub"), merchant_id=s.merchant_id, livemode=False, customer_id=s.customer_id,
        product_id=s.product_id, variant_id=s.variant_id, selling_plan_id=plan_id or s.plan_id, currency="USD",
        status="active", billing_cycle_anchor=start, current_period_start=start, current_period_end=end,
        current_cycle_number=1, renew_at=end, due_at=end, notified_for=end, created_at=start, updated_at=start)
        for _ in range(count)]
    async with db.transaction() as session:
        session.add_all(subs)
    return [sub.id for sub in subs]


async def invoice_cycle_ahead(db: Database, sub_id: str) -> None:
    """A stray invoice that already holds the subscription's next cycle (cycle_key is unique): renewing it fails
    when the renewal's invoice is written."""
    async with db.transaction() as session:
        sub = await session.get(Subscription, sub_id)
        assert sub is not None
        now = db.clock.now()
        session.add(Invoice(id=new_id("inv"), merchant_id=sub.merchant_id, livemode=False, subscription_id=sub.id,
                            customer_id=sub.customer_id, cycle_key=f"{sub.id}:2", amount=Decimal("10.00"),
                            currency="USD", status="void", billing_reason="subscription_cycle", cycle_number=2,
                            period_start=now, period_end=now, lines=[], metadata_={}, created_at=now,
                            updated_at=now))


async def renewal_invoices(db: Database, sub_ids: list[str]) -> dict[str, list[tuple[int, str]]]:
    async with db.read() as session:
        found = await session.exec(select(Invoice).where(col(Invoice.subscription_id).in_(sub_ids),
                                                          col(Invoice.billing_reason) == "subscription_cycle"))
        invoices: dict[str, list[tuple[int, str]]] = {s: [] for s in sub_ids}
        for inv in found:
            invoices[inv.subscription_id].append((inv.cycle_number, inv.status))
        return invoices


async def due_at(db: Database, sub_id: str) -> int | None:
    async with db.read() as session:
        sub = await session.get(Subscription, sub_id)
        assert sub is not None
        return sub.due_at


def collector(db: Database, url: str, tmp_path: Path) -> Collector:
    from server.boot.composition import compose

    settings = load_settings({"PAYGATE_DATABASE_URL": url,
                              "PAYGATE_SECRET_KEY": "test-secret-key-0123456789-abcdefghijklmnop"})
    env = compose(settings, db=db, var_dir=tmp_path)
    return Collector(env=env, mailer=FileMailer(tmp_path / "mail", clock=db.clock))


def run_with_db(url: str, body: Callable[[Database], Awaitable[None]]) -> None:
    async def run() -> None:
        db = Database(url)
        try:
            await body(db)
        finally:
            await db.close()

    asyncio.run(run())


def test_a_subscription_whose_plan_is_gone_does_not_stop_another_merchants_renewal(url: str, tmp_path: Path) \
        -> None:
    async def body(db: Database) -> None:
        broken = await due_subscriptions(db, await shop(db, "Gone plan"), 1, ended_ago=HOUR, plan_id="sp_gone")
        healthy = await due_subscriptions(db, await shop(db, "Beans & Co"), 3, ended_ago=60)
        await renewal.renew_due(db, collector(db, url, tmp_path))
        invoices = await renewal_invoices(db, broken + healthy)
        assert all(invoices[s] == [(2, "open")] for s in healthy), invoices
        assert invoices[broken[0]] == []

    run_with_db(url, body)


def test_a_subscription_whose_cycle_is_invoiced_already_does_not_stop_another_merchants_renewal(
        url: str, tmp_path: Path) -> None:
    async def body(db: Database) -> None:
        broken = await due_subscriptions(db, await shop(db, "Stray invoice"), 1, ended_ago=HOUR)
        await invoice_cycle_ahead(db, broken[0])
        healthy = await due_subscriptions(db, await shop(db, "Beans & Co"), 3, ended_ago=60)
        await renewal.renew_due(db, collector(db, url, tmp_path))
        invoices = await renewal_invoices(db, broken + healthy)
        assert all(invoices[s] == [(2, "open")] for s in healthy), invoices
        assert invoices[broken[0]] == [(2, "void")]  # only the stray one: the failed renewal left nothing

    run_with_db(url, body)


def test_a_failing_subscription_at_the_head_of_every_batch_does_not_stop_the_later_batches(
        url: str, tmp_path: Path) -> None:
    async def body(db: Database) -> None:
        await due_subscriptions(db, await shop(db, "Gone plan"), 1, ended_ago=DAY, plan_id="sp_gone")
        healthy = await due_subscriptions(db, await shop(db, "Beans & Co"), 5, ended_ago=60)
        handled = await renewal.renew_due(db, collector(db, url, tmp_path), batch=2)
        invoices = await renewal_invoices(db, healthy)
        assert all(invoices[s] == [(2, "open")] for s in healthy), invoices
        assert handled == 1 + len(healthy)

    run_with_db(url, body)


def test_a_failing_subscription_is_logged_by_id_and_put_off(
        url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def body(db: Database) -> None:
        broken = (await due_subscriptions(db, await shop(db, "Gone plan"), 1, ended_ago=HOUR, plan_id="sp_gone"))[0]
        now = db.clock.now()
        with caplog.at_level(logging.ERROR, logger="paygate.subscriptions"):
            await renewal.renew_due(db, collector(db, url, tmp_path), now)
        put_off = await due_at(db, broken)
        assert put_off is not None and put_off >= now + renewal.RETRY_SECONDS
        errors = [r for r in caplog.records if r.name == "paygate.subscriptions" and r.levelno >= logging.ERROR]
        assert [getattr(r, "subscription", None) for r in errors] == [broken]
        assert errors[0].exc_info is not None  # the cause, for whoever repairs it

    run_with_db(url, body)


def test_a_put_off_subscription_is_not_tried_again_before_its_retry_time(url: str, tmp_path: Path) -> None:
    async def body(db: Database) -> None:
        await due_subscriptions(db, await shop(db, "Gone plan"), 1, ended_ago=HOUR, plan_id="sp_gone")
        now = db.clock.now()
        assert await renewal.renew_due(db, collector(db, url, tmp_path), now) == 1
        assert await renewal.renew_due(db, collector(db, url, tmp_path), now + 60) == 0

    run_with_db(url, body)


def test_a_put_off_subscription_renews_once_repaired(url: str, tmp_path: Path) -> None:
    async def body(db: Database) -> None:
        s = await shop(db, "Gone plan")
        broken = (await due_subscriptions(db, s, 1, ended_ago=HOUR, plan_id="sp_gone"))[0]
        now = db.clock.now()
        await renewal.renew_due(db, collector(db, url, tmp_path), now)
        async with db.transaction() as session:  # the merchant's plan is put back under the id it had
            product = await session.get(Product, s.product_id)
            assert product is not None
            group = await own_group(session, product)
            session.add(SellingPlan(id="sp_gone", group_id=group.id, merchant_id=s.merchant_id, livemode=False,
                                    position=1, name="Monthly again", billing_cycle="month"))
        retry_at = await due_at(db, broken)
        assert retry_at is not None
        await renewal.renew_due(db, collector(db, url, tmp_path), retry_at)
        assert (await renewal_invoices(db, [broken]))[broken] == [(2, "open")]

    run_with_db(url, body)
