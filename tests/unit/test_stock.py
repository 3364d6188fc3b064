"""Stock rules (server/products/availability.py, server/products/stock.py): units held by open checkouts are not
for sale; a checkout of a tracked variant waits for another one in progress and counts what it holds; sales at the
same time lose no update and never take the stock below 0. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from server.db import Database
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import Status
from server.payment_links.models import PaymentLink, PaymentLinkItem
from server.products import stock
from server.products.availability import Shortfall, shortfall
from server.products.models import Product, ProductVariant
from tests.harness import migrated_database
from tests.unit.db_support import MERCHANT_ID, with_merchant

LINK, SHIRT = "pl_1", "var_shirt"


def product(active: bool = True) -> Product:
    return Product(id="prod_1", merchant_id=MERCHANT_ID, livemode=False, name="T-shirt", default_currency="USD",
                   active=active, created_at=0, updated_at=0)


def shirt(inventory: int | None) -> ProductVariant:
    return ProductVariant(id=SHIRT, product_id="prod_1", position=0, price=Decimal(10), currency="USD",
                          inventory_quantity=inventory)


def snapshot(units: int, variant_id: str = SHIRT) -> dict[str, Any]:
    return {"payment_link_id": LINK, "product": {"id": "prod_1"},  # as pricing writes it
            "items": [{"variant_id": variant_id, "quantity": units, "is_primary": True}]}


def purchase(intent_id: str, units: int, status: str = Status.REQUIRES_PAYMENT_METHOD) -> PaymentIntent:
    return PaymentIntent(id=intent_id, merchant_id=MERCHANT_ID, livemode=False, amount=Decimal(10 * units),
                         currency="USD", status=status, expired_at=10**10, payment_link_id=LINK,
                         link_snapshot=snapshot(units), link_product_id="prod_1",  # held() finds it by product
                         created=0, updated=0)


def test_units_held_by_open_checkouts_are_not_for_sale() -> None:
    assert shortfall(product(), shirt(3), 2, held=1) is None
    assert shortfall(product(), shirt(3), 3, held=1) == Shortfall.TOO_FEW
    assert shortfall(product(), shirt(3), 1, held=3) == Shortfall.SOLD_OUT


def test_stock_lowered_below_what_is_held_is_sold_out() -> None:
    assert shortfall(product(), shirt(1), 1, held=2) == Shortfall.SOLD_OUT


def test_an_untracked_variant_has_no_shortfall_whatever_is_held() -> None:
    assert shortfall(product(), shirt(None), 1000, held=1000) is None


def test_a_purchase_buys_its_snapshots_units_per_variant() -> None:
    items = [{"variant_id": "var_a", "quantity": 2}, {"variant_id": "var_b", "quantity": 1}]
    assert stock.bought({"items": items}) == {"var_a": 2, "var_b": 1}
    assert stock.bought(None) == {}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


async def _shop(db: Database, inventory: int | None, *intents: PaymentIntent) -> None:
    async with db.transaction() as s:
        s.add(product())
        await s.flush()
        s.add(shirt(inventory))
        s.add(PaymentLink(id=LINK, merchant_id=MERCHANT_ID, livemode=False, product_id="prod_1",
                          default_variant_id=SHIRT, created_at=0, updated_at=0))
        await s.flush()
        s.add(PaymentLinkItem(link_id=LINK, variant_id=SHIRT, kind="primary", position=0))
        s.add_all(intents)


async def _stock(db: Database) -> int | None:
    async with db.read() as s:
        return (await s.exec(select(ProductVariant.inventory_quantity).where(ProductVariant.id == SHIRT))).one()


async def _sell(db: Database, intent_id: str) -> None:
    """What the success of the intent does to the stock, in a transaction of its own."""
    async with db.transaction() as s:
        intent = await s.get(PaymentIntent, intent_id)
        assert intent is not None
        await stock.consume(s, intent)


def test_a_checkout_waits_for_one_in_progress_and_counts_its_hold(url: str) -> None:
    async def work(db: Database) -> int:
        await _shop(db, 1)
        first_holds = asyncio.Event()

        async def first() -> None:
            async with db.transaction() as s:
                row = await s.get(ProductVariant, SHIRT)
                assert row is not None and await stock.lock_and_count_held(s, [row]) == {}
                s.add(purchase("pi_first", 1))
                await s.flush()
                first_holds.set()
                await asyncio.sleep(0.5)  # not committed yet: the second must wait, not read around it

        async def second() -> int:
            await first_holds.wait()
            async with db.transaction() as s:
                row = await s.get(ProductVariant, SHIRT)
                assert row is not None
                return (await stock.lock_and_count_held(s, [row]))[SHIRT]

        return (await asyncio.gather(first(), second()))[1]

    assert with_merchant(url, work) == 1


def test_closed_purchases_hold_nothing(url: str) -> None:
    async def work(db: Database) -> Any:
        await _shop(db, 9, purchase("pi_open", 1), purchase("pi_seen", 2, Status.PROCESSING),
                    purchase("pi_part", 3, Status.PARTIAL_PAID), purchase("pi_sold", 4, Status.SUCCESS),
                    purchase("pi_gone", 5, Status.CANCELED), purchase("pi_back", 6, Status.REFUNDED))
        async with db.read() as s:
            return await stock.held(s, [SHIRT])

    assert with_merchant(url, work) == {SHIRT: 6}


def test_an_expired_purchase_holds_nothing_unless_its_payment_is_under_way(url: str) -> None:
    """Past its expiry an intent takes no new attempt: partly paid or unpaid, its units are for sale again (the
    expiry job cancels the unpaid one later). A payment under way keeps its hold until it is decided."""
    def expired(intent: PaymentIntent) -> PaymentIntent:
        intent.expired_at = 1
        return intent

    async def work(db: Database) -> Any:
        await _shop(db, 9, expired(purchase("pi_unpaid", 1)), expired(purchase("pi_part", 2, Status.PARTIAL_PAID)),
                    expired(purchase("pi_seen", 4, Status.PROCESSING)))
        async with db.read() as s:
            return await stock.held(s, [SHIRT])

    assert with_merchant(url, work) == {SHIRT: 4}


def test_concurrent_sales_lose_no_update(url: str) -> None:
    async def work(db: Database) -> int | None:
        await _shop(db, 5, purchase("pi_a", 2, Status.SUCCESS), purchase("pi_b", 2, Status.SUCCESS))
        await asyncio.gather(_sell(db, "pi_a"), _sell(db, "pi_b"))
        return await _stock(db)

    assert with_merchant(url, work) == 1


def test_concurrent_sales_beyond_the_stock_stop_it_at_zero(url: str) -> None:
    async def work(db: Database) -> int | None:
        await _shop(db, 1, purchase("pi_a", 1, Status.SUCCESS), purchase("pi_b", 1, Status.SUCCESS))
        await asyncio.gather(_sell(db, "pi_a"), _sell(db, "pi_b"))
        return await _stock(db)

    assert with_merchant(url, work) == 0


def test_a_sale_leaves_an_untracked_variant_untracked(url: str) -> None:
    async def work(db: Database) -> int | None:
        await _shop(db, None, purchase("pi_a", 3, Status.SUCCESS))
        await _sell(db, "pi_a")
        return await _stock(db)

    assert with_merchant(url, work) is None
