"""Stock rules (server/products/availability.py, server/products/stock.py): units held by open checkouts are not
for sale; an unpaid checkout holds them for the checkout hold only, one with money on its way until it is decided;
what one shopper (customer, else client IP) holds is counted apart; a checkout of a tracked variant waits for
another one in progress and counts what it holds; sales at the same time lose no update and never take the stock
below 0. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from server.customers.models import Customer
from server.db import Database
from server.payment_intents.models import CARDS, Charge, PaymentIntent
from server.payment_intents.states import ChargeStatus, Status
from server.payment_links.models import PaymentLink, PaymentLinkItem
from server.products import stock
from server.products.availability import Shortfall, shortfall
from server.products.models import Product, ProductVariant
from tests.harness import migrated_database
from tests.unit.db_support import MERCHANT_ID, with_merchant

LINK, SHIRT = "pl_1", "var_shirt"
HOLD = 900  # checkout_hold_seconds' default (DESIGN §16)


def product(active: bool = True) -> Product:
    return Product(id="prod_1", merchant_id=MERCHANT_ID, livemode=False, name="T-shirt", default_currency="USD",
                   active=active, created_at=0, updated_at=0)


def shirt(inventory: int | None) -> ProductVariant:
    return ProductVariant(id=SHIRT, product_id="prod_1", position=0, price=Decimal(10), currency="USD",
                          inventory_quantity=inventory)


def snapshot(units: int, variant_id: str = SHIRT) -> dict[str, Any]:
    return {"payment_link_id": LINK, "product": {"id": "prod_1"},  # as pricing writes it
            "items": [{"variant_id": variant_id, "quantity": units, "is_primary": True}]}


def purchase(intent_id: str, units: int, status: str = Status.REQUIRES_PAYMENT_METHOD, *, age: int = 0,
             customer_id: str | None = None, shopper_ip: str = "") -> PaymentIntent:
    """A payment link purchase of `units` shirts, made `age` seconds ago (just now by default)."""
    created = int(time.time()) - age
    return PaymentIntent(id=intent_id, merchant_id=MERCHANT_ID, livemode=False, amount=Decimal(10 * units),
                         currency="USD", status=status, expired_at=10**10, payment_link_id=LINK,
                         link_snapshot=snapshot(units), link_product_id="prod_1",  # held() finds it by product
                         customer_id=customer_id, shopper_ip=shopper_ip, created=created, updated=created)


def card_charge(intent_id: str, provider_status: str, status: str = ChargeStatus.PENDING) -> Charge:
    """A card attempt on the intent, as the provider last described it."""
    return Charge(id=f"ch_{intent_id}", payment_intent_id=intent_id, merchant_id=MERCHANT_ID, livemode=False,
                  payment_method_type=CARDS, asset_id="USD", network="", amount=Decimal(10), deposit_address="",
                  address_index=0, quote_expires_at=10**10, status=status, payment_provider="provider_a",
                  provider_payment_id=f"pi_provider_{intent_id}", provider_status=provider_status, created=0)


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


def test_a_variant_listed_twice_in_a_snapshot_is_bought_for_both_quantities() -> None:
    items = [{"variant_id": "var_a", "quantity": 2}, {"variant_id": "var_a", "quantity": 3}]
    assert stock.bought({"items": items}) == {"var_a": 5}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from migrated_database(request.param, tmp_path)


async def _shop(db: Database, inventory: int | None, *intents: PaymentIntent,
                charges: tuple[Charge, ...] = ()) -> None:
    async with db.transaction() as s:
        for customer in ("cus_ann", "cus_bob"):
            s.add(Customer(id=customer, merchant_id=MERCHANT_ID, livemode=False, created=0, updated=0))
        s.add(product())
        await s.flush()
        s.add(shirt(inventory))
        s.add(PaymentLink(id=LINK, merchant_id=MERCHANT_ID, livemode=False, product_id="prod_1",
                          default_variant_id=SHIRT, created_at=0, updated_at=0))
        await s.flush()
        s.add(PaymentLinkItem(link_id=LINK, variant_id=SHIRT, kind="primary", position=0))
        s.add_all(intents)
        await s.flush()
        s.add_all(charges)


async def _held(db: Database, shopper: stock.Shopper | None = None) -> Any:
    async with db.read() as s:
        return await stock.held(s, [SHIRT], hold_seconds=HOLD, shopper=shopper)


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
                assert row is not None and await stock.lock_and_count_held(s, [row], hold_seconds=HOLD) == {}
                s.add(purchase("pi_first", 1))
                await s.flush()
                first_holds.set()
                await asyncio.sleep(0.5)  # not committed yet: the second must wait, not read around it

        async def second() -> int:
            await first_holds.wait()
            async with db.transaction() as s:
                row = await s.get(ProductVariant, SHIRT)
                assert row is not None
                return (await stock.lock_and_count_held(s, [row], hold_seconds=HOLD))[SHIRT]

        return (await asyncio.gather(first(), second()))[1]

    assert with_merchant(url, work) == 1


def test_closed_purchases_hold_nothing(url: str) -> None:
    async def work(db: Database) -> Any:
        await _shop(db, 9, purchase("pi_open", 1), purchase("pi_seen", 2, Status.PROCESSING),
                    purchase("pi_part", 3, Status.PARTIAL_PAID), purchase("pi_sold", 4, Status.SUCCESS),
                    purchase("pi_gone", 5, Status.CANCELED), purchase("pi_back", 6, Status.REFUNDED))
        return await _held(db)

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
        return await _held(db)

    assert with_merchant(url, work) == {SHIRT: 4}


def test_an_unpaid_purchase_holds_its_units_for_the_checkout_hold_only(url: str) -> None:
    """Counted from the purchase's creation: 900 s after it, unpaid, its units are for sale again, however far its
    expiry is (DESIGN §16), and whatever attempts it opened meanwhile."""
    async def work(db: Database) -> Any:
        await _shop(db, 9, purchase("pi_fresh", 1, age=HOLD - 30), purchase("pi_lapsed", 2, age=HOLD + 5),
                    purchase("pi_old", 4, age=86_400), purchase("pi_tried", 8, age=HOLD + 5),
                    charges=(card_charge("pi_tried", "requires_payment_method"),))
        return await _held(db)

    assert with_merchant(url, work) == {SHIRT: 1}


def test_money_on_its_way_keeps_the_hold_past_the_checkout_hold(url: str) -> None:
    """Processing (a transfer seen, a card being charged), PartialPaid (some paid, the rest may follow) and an unpaid
    one whose card payment is under way at the provider (3-D Secure) keep holding; a card attempt the payer never
    submitted a card to, or one that failed, does not."""
    async def work(db: Database) -> Any:
        await _shop(db, 99, purchase("pi_seen", 1, Status.PROCESSING, age=86_400),
                    purchase("pi_part", 2, Status.PARTIAL_PAID, age=86_400),
                    purchase("pi_3ds", 4, age=86_400), purchase("pi_unsubmitted", 8, age=86_400),
                    purchase("pi_declined", 16, age=86_400), purchase("pi_new", 32, age=86_400),
                    charges=(card_charge("pi_3ds", "requires_action"),
                             card_charge("pi_unsubmitted", "requires_confirmation"),
                             card_charge("pi_declined", "requires_payment_method", ChargeStatus.FAILED),
                             card_charge("pi_new", "")))
        return await _held(db)

    assert with_merchant(url, work) == {SHIRT: 1 + 2 + 4}


def test_a_card_payment_the_provider_already_decided_holds_nothing_past_the_checkout_hold(url: str) -> None:
    """Submitted to the provider (not one of its unsubmitted states) but decided: nothing is under way any more."""
    async def work(db: Database) -> Any:
        await _shop(db, 99, purchase("pi_failed", 1, age=86_400),
                    charges=(card_charge("pi_failed", "canceled", ChargeStatus.FAILED),))
        return await _held(db)

    assert with_merchant(url, work) == {}


def test_a_shoppers_holds_are_their_customers_else_their_ips(url: str) -> None:
    """A purchase with a customer is that customer's, from whatever address; one without is the address's that
    made it; one the merchant's server made for no customer (no address kept) is nobody's."""
    async def work(db: Database) -> Any:
        await _shop(db, 99, purchase("pi_ann_a", 1, customer_id="cus_ann", shopper_ip="10.0.0.1"),
                    purchase("pi_ann_b", 2, customer_id="cus_ann", shopper_ip="10.0.0.2"),
                    purchase("pi_bob", 4, customer_id="cus_bob", shopper_ip="10.0.0.1"),
                    purchase("pi_anon", 8, shopper_ip="10.0.0.1"), purchase("pi_server", 16),
                    purchase("pi_ann_lapsed", 32, customer_id="cus_ann", age=HOLD + 5),
                    purchase("pi_anon_paid", 64, Status.SUCCESS, shopper_ip="10.0.0.1"))
        return [await _held(db, stock.shopper_of(customer, ip)) for customer, ip in (
            ("cus_ann", "10.0.0.9"), ("cus_bob", ""), (None, "10.0.0.1"), (None, "10.0.0.2"))] + \
            [stock.shopper_of(None, "")]

    assert with_merchant(url, work) == [{SHIRT: 1 + 2}, {SHIRT: 4}, {SHIRT: 8}, {}, None]


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


def test_a_sale_leaves_the_stock_of_other_variants_alone(url: str) -> None:
    async def work(db: Database) -> int | None:
        await _shop(db, 5, purchase("pi_a", 2, Status.SUCCESS))
        async with db.transaction() as s:
            s.add(ProductVariant(id="var_mug", product_id="prod_1", position=1, price=Decimal(10), currency="USD",
                                 inventory_quantity=4))
        await _sell(db, "pi_a")
        async with db.read() as s:
            return (await s.exec(select(ProductVariant.inventory_quantity)
                                 .where(ProductVariant.id == "var_mug"))).one()

    assert with_merchant(url, work) == 4


async def _sold_and_loaded(db: Database, intent_id: str) -> int | None:
    """The shirt's stock as the session that sold it sees it afterwards: the row it had loaded, not read again."""
    async with db.transaction() as s:
        intent, variant = await s.get(PaymentIntent, intent_id), await s.get(ProductVariant, SHIRT)
        assert intent is not None and variant is not None
        await stock.consume(s, intent)
        return variant.inventory_quantity


def test_the_selling_session_sees_the_stock_left_after_the_sale(url: str) -> None:
    async def work(db: Database) -> int | None:
        await _shop(db, 5, purchase("pi_a", 2, Status.SUCCESS))
        return await _sold_and_loaded(db, "pi_a")

    assert with_merchant(url, work) == 3


def test_the_selling_session_sees_no_stock_left_after_selling_all_of_it(url: str) -> None:
    async def work(db: Database) -> int | None:
        await _shop(db, 2, purchase("pi_a", 2, Status.SUCCESS))
        return await _sold_and_loaded(db, "pi_a")

    assert with_merchant(url, work) == 0


def test_a_sale_beyond_the_stock_left_is_logged(url: str, caplog: pytest.LogCaptureFixture) -> None:
    async def work(db: Database) -> None:
        await _shop(db, 0, purchase("pi_a", 2, Status.SUCCESS))
        await _sell(db, "pi_a")

    with caplog.at_level(logging.WARNING, logger="paygate.products"):
        with_merchant(url, work)
    logged = [(r.getMessage(), r.__dict__.get("payment_intent"), r.__dict__.get("variant"), r.__dict__.get("bought"),
               r.__dict__.get("stock_left")) for r in caplog.records if r.name == "paygate.products"]
    assert logged == [("sold beyond the stock left", "pi_a", SHIRT, 2, 0)]


def test_a_sale_of_exactly_the_stock_left_logs_nothing(url: str, caplog: pytest.LogCaptureFixture) -> None:
    async def work(db: Database) -> None:
        await _shop(db, 2, purchase("pi_a", 2, Status.SUCCESS))
        await _sell(db, "pi_a")

    with caplog.at_level(logging.WARNING, logger="paygate.products"):
        with_merchant(url, work)
    assert [r for r in caplog.records if r.name == "paygate.products"] == []
