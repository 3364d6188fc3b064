"""A renewal sweep of crypto subscriptions over several batches, e-mailing to `.eml` files (no SMTP configured): each
batch's e-mails are written while the next batch is worked out, and when the sweep returns every renewal invoice
has been e-mailed exactly once and is marked sent (no lease left for the mail job). On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import email
from collections.abc import Iterator
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
SUBSCRIPTIONS = 2 * renewal.BATCH + 7  # three batches, the last one short


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


async def seed(db: Database) -> None:
    now = db.clock.now()
    mch, prod, var, plan, cus = new_id("mch"), new_id("prod"), new_id("var"), new_id("sp"), new_id("cus")
    start, end = now - 31 * DAY, now - 60
    async with db.transaction() as s:
        s.add(Merchant(id=mch, name="Beans & Co", created=now))
        await s.flush()
        product = Product(id=prod, merchant_id=mch, livemode=False, name="Beans", default_currency="USD",
                          created_at=now, updated_at=now)
        s.add(product)
        await s.flush()
        s.add(ProductVariant(id=var, product_id=prod, position=0, price=Decimal("10.00"), currency="USD"))
        group = await own_group(s, product)
        s.add(SellingPlan(id=plan, group_id=group.id, merchant_id=mch, livemode=False, position=0, name="Monthly",
                          billing_cycle="month"))
        s.add(Customer(id=cus, merchant_id=mch, livemode=False, email="ann@example.com", created=now, updated=now))
        await s.flush()
        s.add_all([Subscription(
            id=new_id("sub"), merchant_id=mch, livemode=False, customer_id=cus, product_id=prod, variant_id=var,
            selling_plan_id=plan, currency="USD", status="active", billing_cycle_anchor=start,
            current_period_start=start, current_period_end=end, current_cycle_number=1, renew_at=end, due_at=end,
            notified_for=end, created_at=start, updated_at=start) for _ in range(SUBSCRIPTIONS)])


def test_every_renewal_invoice_is_emailed_once_and_marked_sent_when_the_sweep_returns(url: str, tmp_path: Path) \
        -> None:
    from server.boot.composition import compose

    async def run() -> None:
        db = Database(url)
        try:
            await seed(db)
            settings = load_settings({"PAYGATE_DATABASE_URL": url,
                                      "PAYGATE_SECRET_KEY": "test-secret-key-0123456789-abcdefghijklmnop"})
            env = compose(settings, db=db, var_dir=tmp_path)
            mail_dir = tmp_path / "mail"
            handled = await renewal.renew_due(db, Collector(env=env, mailer=FileMailer(mail_dir, clock=db.clock)))
            written = [p.read_bytes() for p in mail_dir.glob("*.eml")]  # at once, before this test yields
            assert handled == SUBSCRIPTIONS
            async with db.read() as s:
                invoices = list(await s.exec(select(Invoice).where(
                    col(Invoice.billing_reason) == "subscription_cycle")))
            assert len(invoices) == SUBSCRIPTIONS
            assert all(i.status == "open" and i.mail_due_at is None and i.sent_at is not None for i in invoices)
            subjects = [email.message_from_bytes(raw)["Subject"] for raw in written]
            assert sorted(subjects) == sorted(f"Beans & Co: invoice {i.id} for $10.00" for i in invoices)
        finally:
            await db.close()

    asyncio.run(run())
