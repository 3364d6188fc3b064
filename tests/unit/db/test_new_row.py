"""`new_row(Model, **values)` makes the object `Model(**values)` makes (same values, defaults and fields set), and
SQLAlchemy inserts, reads and updates it the same way. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import SQLModel

from server.db import Database
from server.db.construct import insert_new, new_row
from server.events.models import Event
from server.ids import new_id
from server.invoices.models import Invoice
from server.merchants.models import Merchant
from server.payment_intents.models import PaymentIntent
from tests.harness import migrated_database


def fields(obj: SQLModel) -> dict[str, Any]:
    return {k: v for k, v in obj.__dict__.items() if not k.startswith("_sa_")}


def invoice_values(**extra: Any) -> dict[str, Any]:
    return dict(id=new_id("inv"), merchant_id="mch_1", livemode=False, subscription_id="sub_1", currency="USD",
                amount=Decimal("9.50"), status="open", billing_reason="subscription_cycle", created_at=1,
                updated_at=2, lines=[{"amount": "9.50"}], **extra)


@pytest.mark.parametrize("model, values", [
    (Invoice, invoice_values()),
    (Invoice, invoice_values(sort_key=7, metadata_={"a": "b"}, cycle_key="sub_1:2")),
    (PaymentIntent, dict(id="pi_1", merchant_id="mch_1", livemode=True, amount=Decimal("1.00"), currency="USD",
                         status="RequiresPaymentMethod", expired_at=10, created=1, updated=1, sort_key=3)),
    (Event, dict(id="evt_1", merchant_id="mch_1", livemode=False, type="invoice.created", api_version="v",
                 object_type="invoice", object_id="inv_1", data="{}", created=1)),
])
def test_the_same_object_as_the_models_constructor(model: type[SQLModel], values: dict[str, Any]) -> None:
    made, built = model(**dict(values)), new_row(model, **dict(values))
    assert built.model_fields_set == made.model_fields_set == set(values)
    if "sort_key" not in values:  # a default factory: a fresh value for each row
        assert built.sort_key != made.sort_key  # type: ignore[attr-defined]
        made.sort_key = built.sort_key  # type: ignore[attr-defined]
    assert fields(built) == fields(made)
    assert built.model_dump() == made.model_dump()


def test_mutable_defaults_and_factories_are_never_shared() -> None:
    a, b = new_row(Invoice, **invoice_values()), new_row(Invoice, **invoice_values())
    assert a.metadata_ == {} and a.metadata_ is not b.metadata_


def test_an_unknown_field_is_an_error() -> None:
    with pytest.raises(TypeError, match="amont"):
        new_row(Invoice, **invoice_values(amont=1))


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


def test_inserted_changed_before_the_flush_and_updated_after_it(url: str) -> None:
    async def run() -> None:
        db = Database(url)
        try:
            async with db.transaction() as s:
                s.add(Merchant(id="mch_1", name="M", created=0))
                await s.flush()
                pi = new_row(PaymentIntent, id="pi_1", merchant_id="mch_1", livemode=False, amount=Decimal("9.50"),
                             currency="USD", status="RequiresPaymentMethod", expired_at=10, created=1, updated=1)
                s.add(pi)
                pi.description = "Invoice inv_1"  # set after add, before the flush: part of the INSERT
                await s.flush()
                pi.status = "Success"  # after the flush: an UPDATE
            async with db.read() as s:
                got = await s.get(PaymentIntent, "pi_1")
            assert got is not None
            assert (got.status, got.description, got.amount, got.amount_refunded, got.metadata_) == \
                ("Success", "Invoice inv_1", Decimal("9.50"), Decimal(0), {})
        finally:
            await db.close()

    asyncio.run(run())


def test_insert_new_writes_what_add_and_flush_would_after_what_the_session_holds(url: str) -> None:
    async def run() -> None:
        db = Database(url)
        try:
            async with db.transaction() as s:
                s.add(Merchant(id="mch_1", name="M", created=0))  # pending: the rows below refer to it
                direct = new_row(PaymentIntent, id="pi_direct", merchant_id="mch_1", livemode=False,
                                 amount=Decimal("9.50"), currency="USD", status="RequiresPaymentMethod",
                                 expired_at=10, created=1, updated=1, metadata_={"k": "v"})
                await insert_new(s, direct)
                s.add(new_row(PaymentIntent, id="pi_added", merchant_id="mch_1", livemode=False,
                              amount=Decimal("9.50"), currency="USD", status="RequiresPaymentMethod",
                              expired_at=10, created=1, updated=1, metadata_={"k": "v"},
                              sort_key=direct.sort_key))
            async with db.read() as s:
                a, b = await s.get(PaymentIntent, "pi_direct"), await s.get(PaymentIntent, "pi_added")
            assert a is not None and b is not None
            assert {**fields(a), "id": ""} == {**fields(b), "id": ""}
            assert a.metadata_ == {"k": "v"} and a.amount == Decimal("9.50")
        finally:
            await db.close()

    asyncio.run(run())


def test_insert_new_of_several_rows_is_one_model_at_a_time(url: str) -> None:
    async def run() -> None:
        db = Database(url)
        try:
            with pytest.raises(TypeError, match="one model"):
                async with db.transaction() as s:
                    await insert_new(s, new_row(Merchant, id="mch_1", name="M", created=0),
                                     new_row(Event, id="evt_1", merchant_id="mch_1", livemode=False, type="t",
                                             api_version="v", object_type="o", object_id="o_1", data="{}",
                                             created=1))
        finally:
            await db.close()

    asyncio.run(run())
