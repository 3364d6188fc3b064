"""An invoice's e-mail is sent once per ask (server/subscriptions/collect.py `send_mails`): the mail job leases only
invoices still due once their rows are locked, so two jobs that read the same due ids, or a job running while the
merchant's `send` mails the invoice, never send it twice."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from email.message import Message
from pathlib import Path

import pytest

from server.customers.models import Customer
from server.db import Database
from server.invoices.models import Invoice
from server.merchants.models import Merchant
from server.products.models import Product
from server.subscriptions.collect import MAIL_LEASE_SECONDS, send_mails
from server.subscriptions.models import Subscription
from tests.harness import migrated_database

INVOICE = "inv_1"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


class Outbox:
    def __init__(self) -> None:
        self.sent: list[Message] = []

    async def send(self, message: Message) -> None:
        self.sent.append(message)


async def seed(db: Database, mail_due_at: int) -> None:
    async with db.transaction() as s:
        s.add(Merchant(id="mch_1", name="M", created=0))
        await s.flush()
        s.add(Customer(id="cus_1", merchant_id="mch_1", livemode=False, email="payer@example.com", created=0,
                       updated=0))
        s.add(Product(id="prod_1", merchant_id="mch_1", livemode=False, name="P", default_currency="USD",
                      created_at=0, updated_at=0))
        await s.flush()
        s.add(Subscription(id="sub_1", merchant_id="mch_1", livemode=False, product_id="prod_1", variant_id="var_1",
                           selling_plan_id="sp_1", currency="USD", status="active", created_at=0, updated_at=0))
        await s.flush()
        s.add(Invoice(id=INVOICE, merchant_id="mch_1", livemode=False, subscription_id="sub_1", customer_id="cus_1",
                      currency="USD", status="open", billing_reason="subscription_cycle",
                      payment_url="https://pay.example.com/i/1", mail_due_at=mail_due_at, created_at=0,
                      updated_at=0))


def run(url: str, mail_due_in: int, scenario: Callable[[Database, Outbox], Awaitable[None]]) -> None:
    async def go() -> None:
        db = Database(url)
        try:
            await seed(db, db.clock.now() + mail_due_in)
            await scenario(db, Outbox())
        finally:
            await db.close()
    asyncio.run(go())


def test_two_mail_jobs_that_read_the_same_due_invoice_send_it_once(url: str) -> None:
    async def scenario(db: Database, outbox: Outbox) -> None:
        # Both read the id while it was due; the first leased and sent it before the second locked it.
        assert await send_mails(db, outbox, [INVOICE]) == 1
        assert await send_mails(db, outbox, [INVOICE]) == 0
        assert len(outbox.sent) == 1
    run(url, -10, scenario)


def test_the_mail_job_leaves_an_invoice_leased_to_a_merchants_send(url: str) -> None:
    async def scenario(db: Database, outbox: Outbox) -> None:
        # `POST /v1/invoices/{id}/send` leases the invoice to its own request (server/invoices/service.py `send`).
        assert await send_mails(db, outbox, [INVOICE]) == 0
        assert outbox.sent == []
    run(url, MAIL_LEASE_SECONDS, scenario)


def test_a_lapsed_lease_is_mailed_by_the_job(url: str) -> None:
    async def scenario(db: Database, outbox: Outbox) -> None:
        assert await send_mails(db, outbox, [INVOICE]) == 1
        async with db.read() as s:
            inv = await s.get(Invoice, INVOICE)
            assert inv is not None and inv.mail_due_at is None and inv.sent_at is not None
    run(url, -MAIL_LEASE_SECONDS, scenario)
