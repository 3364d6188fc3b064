"""The lock order (server/subscriptions/locks.py) on a real PostgreSQL: a payment intent before its subscription.

A second connection plays the payment: it holds the intent of the subscription's open invoice, as a settling
payment does before it locks the subscription. The subscription side must then wait for the intent without holding
the subscription (the payment can still take it), and the scheduler's claim must wait for nothing: it passes the
subscription by."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.db import Database
from server.invoices.models import Invoice
from server.merchants.models import Merchant
from server.payment_intents.models import PaymentIntent
from server.products.models import Product
from server.subscriptions import locks
from server.subscriptions.models import Subscription
from tests.harness import migrated_database

NOW = 1_800_000_000
SUB, INTENT = "sub_1", "pi_1"


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    yield from migrated_database("postgresql", tmp_path)


async def seed(db: Database) -> None:
    """A due subscription with an open invoice and that invoice's intent."""
    async with db.transaction() as s:
        s.add(Merchant(id="mch_1", name="M", created=0))
        s.add(Product(id="prod_1", merchant_id="mch_1", livemode=False, name="P", default_currency="USD",
                      created_at=0, updated_at=0))
        await s.flush()
        s.add(Subscription(id=SUB, merchant_id="mch_1", livemode=False, product_id="prod_1", variant_id="var_1",
                           selling_plan_id="sp_1", currency="USD", status="past_due", due_at=NOW - 60, created_at=0,
                           updated_at=0))
        s.add(PaymentIntent(id=INTENT, merchant_id="mch_1", livemode=False, amount=Decimal(10), currency="USD",
                            status="Processing", expired_at=NOW + 3600, created=0, updated=0))
        await s.flush()
        s.add(Invoice(id="inv_1", merchant_id="mch_1", livemode=False, subscription_id=SUB, payment_intent_id=INTENT,
                      currency="USD", status="open", billing_reason="subscription_cycle", created_at=0,
                      updated_at=0))


@asynccontextmanager
async def payment_holding_the_intent(db: Database) -> AsyncIterator[AsyncSession]:
    """Another transaction holding the intent, as a payment being settled does (server/payment_intents/settle.py)."""
    async with db.transaction() as s:
        await s.get(PaymentIntent, INTENT, with_for_update=True)
        yield s


async def subscription_is_free(db: Database) -> bool:
    """Whether the subscription can be locked at once (what the payment does next)."""
    async with db.transaction() as s:
        try:
            await s.exec(select(Subscription.id).where(Subscription.id == SUB).with_for_update(nowait=True))
        except sa.exc.OperationalError:
            return False
    return True


def run(url: str, scenario: Callable[[Database], Awaitable[None]]) -> None:
    async def go() -> None:
        db = Database(url)
        try:
            await seed(db)
            await scenario(db)
        finally:
            await db.close()
    asyncio.run(go())


def test_the_subscription_side_waits_for_the_intent_before_it_takes_the_subscription(url: str) -> None:
    async def scenario(db: Database) -> None:
        async with payment_holding_the_intent(db):
            async def change() -> None:
                async with db.transaction() as s:
                    await locks.payments_then_subscription(s, SUB)
            waiting = asyncio.create_task(change())
            await asyncio.sleep(0.5)
            assert not waiting.done()  # it waits for the intent …
            assert await subscription_is_free(db)  # … holding nothing the payment needs next
        await asyncio.wait_for(waiting, 10)  # and goes on once the payment committed
    run(url, scenario)


def test_the_scheduler_passes_by_a_subscription_whose_payment_is_settling_without_waiting(url: str) -> None:
    async def scenario(db: Database) -> None:
        async with payment_holding_the_intent(db), db.transaction() as s:
            assert await asyncio.wait_for(locks.claim_due(s, NOW, 10, postgres=True), 5) == []
        async with db.transaction() as s:
            assert [sub.id for sub in await locks.claim_due(s, NOW, 10, postgres=True)] == [SUB]
    run(url, scenario)
