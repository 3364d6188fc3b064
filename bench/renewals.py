"""How fast one renewal sweep issues and collects the invoices of due subscriptions, as a ratio to a bare SQL batch
doing the same inserts and updates in the same run (DESIGN §13: ratios, never asserted times).

One run builds a fresh PostgreSQL database (PAYGATE_TEST_PG's server; `--sqlite` for SQLite), seeds a merchant, a
product with a monthly plan, a customer and `--count` active subscriptions whose period has just ended, then:

* `sweep`    — `renewal.renew_due`: claim (FOR UPDATE SKIP LOCKED), issue the cycle's invoice, open its payment
               intent, record the events, e-mail the payment link (to .eml files in a temporary folder);
* `bare SQL` — the same rows written by hand: per subscription one invoice insert, one intent insert, four event
               inserts and one subscription update, in batches of the sweep's size.

    .venv/bin/python bench/renewals.py [--count 10000] [--sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import cast

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from server import clock  # noqa: E402
from server.boot.composition import compose  # noqa: E402
from server.config import load_settings  # noqa: E402
from server.customers.models import Customer  # noqa: E402
from server.db import Database, migrate  # noqa: E402
from server.events.models import Event  # noqa: E402
from server.ids import new_id  # noqa: E402
from server.invoices.models import Invoice  # noqa: E402
from server.mail import FileMailer  # noqa: E402
from server.merchants.models import Merchant  # noqa: E402
from server.payment_intents.models import PaymentIntent  # noqa: E402
from server.products.models import Product, ProductVariant, SellingPlan  # noqa: E402
from server.subscriptions import renewal  # noqa: E402
from server.subscriptions.collect import Collector  # noqa: E402
from server.subscriptions.models import Subscription  # noqa: E402

DAY = 86_400
SECRET_KEY = "bench-secret-key-0123456789-abcdefghijklmnop"
MONEY = ("amount_captured", "amount_refunded", "tx_fee", "tax_fee", "frozen_amount", "net_amount", "network_fee",
         "amount_overpaid", "amount_received_late")
PG = os.environ.get("PAYGATE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def fresh_database(sqlite: bool, workdir: Path) -> str:
    if sqlite:
        return f"sqlite:///{workdir / 'bench.db'}"
    name = f"paygate_bench_{uuid.uuid4().hex[:8]}"
    engine = sa.create_engine(PG.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return PG.rsplit("/", 1)[0] + "/" + name


def drop_database(url: str) -> None:
    if url.startswith("postgresql"):
        engine = sa.create_engine(PG.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))
        engine.dispose()


async def seed(db: Database, count: int) -> dict[str, str]:
    now = db.clock.now()
    ids = {"merchant": new_id("mch"), "product": new_id("prod"), "variant": new_id("var"), "plan": new_id("sp"),
           "customer": new_id("cus")}
    start, end = now - 31 * DAY, now - 60
    async with db.transaction() as s:
        s.add(Merchant(id=ids["merchant"], name="Bench", created=now))
        await s.flush()
        s.add(Product(id=ids["product"], merchant_id=ids["merchant"], livemode=False, name="Beans",
                      default_currency="USD", created_at=now, updated_at=now))
        await s.flush()
        s.add(ProductVariant(id=ids["variant"], product_id=ids["product"], position=0, price=Decimal("10.00"),
                             currency="USD"))
        s.add(SellingPlan(id=ids["plan"], product_id=ids["product"], position=0, name="Monthly",
                          billing_cycle="month"))
        s.add(Customer(id=ids["customer"], merchant_id=ids["merchant"], livemode=False, email="b@example.com",
                       created=now, updated=now))
    for offset in range(0, count, 1000):
        async with db.transaction() as s:
            s.add_all([Subscription(
                id=new_id("sub"), merchant_id=ids["merchant"], livemode=False, customer_id=ids["customer"],
                product_id=ids["product"], variant_id=ids["variant"], selling_plan_id=ids["plan"], currency="USD",
                status="active", billing_cycle_anchor=start, current_period_start=start, current_period_end=end,
                current_cycle_number=1, renew_at=end, due_at=end, notified_for=end, created_at=start,
                updated_at=start)
                for _ in range(min(1000, count - offset))])
    return ids


async def bare(db: Database, ids: dict[str, str], count: int) -> None:
    """The sweep's writes by hand, in batches of renewal.BATCH, one transaction each."""
    now = db.clock.now()
    async with db.read() as s:
        subs = [r[0] for r in await s.exec(sa.select(Subscription.id).limit(count))]  # type: ignore[call-overload]
    inv_t, pi_t, ev_t, sub_t = (cast(sa.Table, sa.inspect(m).local_table)
                                for m in (Invoice, PaymentIntent, Event, Subscription))
    for i in range(0, len(subs), renewal.BATCH):
        async with db.transaction() as s:
            invs, pis, evs = [], [], []
            for sub_id in subs[i:i + renewal.BATCH]:
                inv, pi = f"inv_bare{uuid.uuid4().hex[:20]}", f"pi_bare{uuid.uuid4().hex[:20]}"
                invs.append(dict(id=inv, merchant_id=ids["merchant"], livemode=False, subscription_id=sub_id,
                                 customer_id=ids["customer"], amount=Decimal("10.00"), amount_paid=Decimal(0),
                                 currency="USD",
                                 decimals=2, status="open", billing_reason="subscription_cycle", cycle_number=3,
                                 period_start=now, period_end=now + 30 * DAY, attempt_count=0, lines=[],
                                 metadata={}, external_id="", created_at=now, sort_key=clock.sort_key(),
                                 updated_at=now, version=1, cycle_key=f"{sub_id}:3", payment_intent_id=pi))
                pis.append(dict(id=pi, merchant_id=ids["merchant"], livemode=False, amount=Decimal("10.00"),
                                currency="USD",
                                description="", metadata={}, merchant_order_id="", payment_method_type="",
                                receipt_email="", return_url="", status="RequiresPaymentMethod",
                                complete_on_first_payment=False, permanent_deposit=False,
                                permanent_deposit_asset_id="", expired_at=now + 7 * DAY, canceled_at=0,
                                cancellation_reason="", paid_asset_id="", **dict.fromkeys(MONEY, Decimal(0)),
                                created=now, sort_key=clock.sort_key(),
                                updated=now))
                for t in ("invoice.created", "invoice.finalized", "payment_intent.created", "subscription.updated"):
                    evs.append(dict(id=f"evt_bare{uuid.uuid4().hex[:20]}", merchant_id=ids["merchant"],
                                    livemode=False, type=t, api_version="2026-11-22", object_type="x",
                                    object_id=sub_id, data="{}", created=now, sort_key=clock.sort_key()))
            conn = await s.connection()
            await conn.execute(sa.insert(inv_t), invs)
            await conn.execute(sa.insert(pi_t), pis)
            await conn.execute(sa.insert(ev_t), evs)
            for sub_id in subs[i:i + renewal.BATCH]:
                await conn.execute(sa.update(sub_t).where(sub_t.c.id == sub_id).values(
                    renew_at=None, due_at=now + 3 * DAY, latest_invoice_id="inv", updated_at=now))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--sqlite", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        url = fresh_database(args.sqlite, workdir)
        try:
            migrate.upgrade(url)
            db = Database(url)
            ids = await seed(db, args.count)
            settings = load_settings({"PAYGATE_DATABASE_URL": url, "PAYGATE_SECRET_KEY": SECRET_KEY})
            # Every package's outbox subscribers and listeners, as in a serving scheduler: the sweep's events are
            # fanned out to webhooks and seen by the treasury and subscriptions as they are in production.
            env = compose(settings, db=db, var_dir=workdir)
            collector = Collector(env=env, mailer=FileMailer(workdir / "mail", clock=db.clock))
            started = time.perf_counter()
            handled = await renewal.renew_due(db, collector)
            sweep = time.perf_counter() - started
            started = time.perf_counter()
            await bare(db, ids, args.count)
            baseline = time.perf_counter() - started
            await db.close()
        finally:
            drop_database(url)
    kind = "SQLite" if args.sqlite else "PostgreSQL"
    print(f"{kind}: {handled} subscriptions renewed in one sweep in {sweep:.2f} s ({handled / sweep:.0f}/s); "
          f"bare SQL {baseline:.2f} s; ratio {baseline / sweep:.3f}x")


if __name__ == "__main__":
    asyncio.run(main())
