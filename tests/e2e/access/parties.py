"""A merchant in the access sweep: its clients (test secret, live secret, public key) and its objects, made on
demand through the API by one factory per kind of id. `FACTORIES` is the table the sweep's coverage test checks:
every id an operation takes must name a kind listed here."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx

from server.cards.models import SavedPaymentMethod
from server.db import Database
from server.ids import new_id
from server.orders.models import Order
from server.payrolls.models import Payroll
from server.refunds.models import Refund
from server.treasury.payouts.models import Payout as PayoutRow
from tests import seed
from tests.conftest import http_client, ok
from tests.e2e.http.builders import selling_plan, variant_product_body
from tests.harness import Service


@dataclass
class Party:
    service: Service
    merchant: dict[str, Any]
    api: httpx.Client  # test-mode secret key
    live: httpx.Client  # live-mode secret key
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, service: Service, merchant: dict[str, Any]) -> Party:
        return cls(service, merchant, http_client(service, merchant["test"]["secret_key"]),
                   http_client(service, merchant["live"]["secret_key"]))

    def close(self) -> None:
        self.api.close()
        self.live.close()

    def obj(self, kind: str) -> dict[str, Any]:
        """The merchant's object of that kind, made once."""
        if kind not in self.objects:
            self.objects[kind] = FACTORIES[kind](self)
        return self.objects[kind]

    def id(self, kind: str) -> str:
        return str(self.obj(kind)["id"])


def _product(p: Party) -> dict[str, Any]:
    """Two variants (the first sold as the primary, the second as an add-on) and a selling plan: every id a
    purchase through a payment link can name."""
    return ok(p.api.post("/v1/products", json=variant_product_body(  # type: ignore[no-any-return]
        ("10.00", "12.50"), selling_plans=[selling_plan()])))


def _payment_link(p: Party) -> dict[str, Any]:
    variant = p.id("variant")
    return ok(p.api.post("/v1/payment_links", json={  # type: ignore[no-any-return]
        "product_id": p.id("product"), "default_variant_id": variant, "primary_variant_ids": [variant],
        "addon_variants": [{"variant_id": p.id("addon_variant"), "max_quantity": 2}]}))


def _refund(p: Party) -> dict[str, Any]:
    """A refund needs a paid intent, i.e. a chain payment; the sweep only needs the row, so it writes one (failed,
    so that the refund sender leaves it alone) for an intent of the merchant made through the API."""
    intent = p.id("payment_intent")
    refund_id = new_id("rf")
    now = int(time.time())

    async def write() -> None:
        db = Database(p.service.database_url)
        try:
            async with db.transaction() as session:
                session.add(Refund(id=refund_id, merchant_id=p.merchant["merchant_id"], livemode=False,
                                   payment_intent_id=intent, asset_id="USDT-ETH-TEST", network="ETH-TEST",
                                   decimals=6, amount=Decimal("1.5"), refund_address="0x" + "1" * 40,
                                   status="Failed", failure_reason="network_error", created=now, updated=now))
        finally:
            await db.close()

    asyncio.run(write())
    return {"id": refund_id}


def _payout(p: Party) -> dict[str, Any]:
    """A payout needs a verified address and funds on chain; the sweep only needs the row: written failed, so that
    the sender leaves it alone."""
    payout_id = new_id("payout")
    now = int(time.time())
    # Made through /v1 before the transaction below opens: inside it, SQLite's write lock would block the server.
    address_id = p.id("address")

    async def write() -> None:
        db = Database(p.service.database_url)
        try:
            async with db.transaction() as session:
                session.add(PayoutRow(id=payout_id, merchant_id=p.merchant["merchant_id"], livemode=False,
                                      asset_id="USDT-ETH-TEST", network="ETH-TEST", decimals=6, amount=Decimal("1"),
                                      merchant_address_id=address_id, address="0x" + "2" * 40,
                                      status="failed", approval_status="not_required", created=now, updated=now))
        finally:
            await db.close()

    asyncio.run(write())
    return {"id": payout_id}


def _order(p: Party) -> dict[str, Any]:
    """An order is made when a payment link purchase is paid on chain; the sweep only needs the row, so it writes
    one for an intent of the merchant made through the API."""
    intent = p.id("payment_intent")
    order_id = new_id("ord")
    now = int(time.time())

    async def write() -> None:
        db = Database(p.service.database_url)
        try:
            async with db.transaction() as session:
                session.add(Order(id=order_id, merchant_id=p.merchant["merchant_id"], livemode=False,
                                  payment_intent_id=intent, payment_link_id=new_id("pl"), total=Decimal("1"),
                                  currency="USD", status="Paid", payment_method="Crypto", created_at=now,
                                  updated_at=now))
        finally:
            await db.close()

    asyncio.run(write())
    return {"id": order_id}


def _payroll(p: Party) -> dict[str, Any]:
    """A payroll's items need verified addresses (a signature or a micro-deposit); the sweep only needs the row: a
    payroll of no items, not confirmed (so that the owner's confirmation succeeds and moves nothing)."""
    payroll_id = new_id("payroll")
    now = int(time.time())

    async def write() -> None:
        db = Database(p.service.database_url)
        try:
            async with db.transaction() as session:
                session.add(Payroll(id=payroll_id, merchant_id=p.merchant["merchant_id"], livemode=False,
                                    asset_id="USDT-ETH-TEST", network="ETH-TEST", total_amount=Decimal(0),
                                    item_count=0, created_at=now, updated_at=now))
        finally:
            await db.close()

    asyncio.run(write())
    return {"id": payroll_id}


def _saved_card(p: Party, livemode: bool) -> dict[str, Any]:
    """A card saved for the party's customer of that mode. Saving one takes a card provider (localstripe:
    tests/e2e/cards/test_saved_cards.py); the sweep only needs the row, written as server/cards/saved.py keeps it."""
    customer_id = p.id("live_customer" if livemode else "customer")  # made through /v1 before the write below
    method_id = new_id("pm")

    async def write() -> None:
        db = Database(p.service.database_url)
        try:
            async with db.transaction() as session:
                session.add(SavedPaymentMethod(
                    id=method_id, merchant_id=p.merchant["merchant_id"], livemode=livemode, customer_id=customer_id,
                    provider="provider_a", provider_customer_id=f"cus_{secrets.token_hex(7)}",
                    provider_payment_method_id=f"pm_{secrets.token_hex(12)}", brand="visa", last4="4242",
                    funding="credit", exp_month=12, exp_year=2040, country="US", created=int(time.time())))
        finally:
            await db.close()

    asyncio.run(write())
    return {"id": method_id, "customer": customer_id}


def _intent_for(p: Party, customer_kind: str, api: httpx.Client) -> dict[str, Any]:
    """A card-payable intent (priced in USD) of the customer a saved card of that mode belongs to."""
    return ok(api.post("/v1/payment_intents", json={  # type: ignore[no-any-return]
        "amount": "10.50", "currency": "USD", "customer": p.id(customer_kind)}))


def _subscription_purchase(p: Party) -> dict[str, Any]:
    """An intent for the party's selling plan through its payment link: it creates an (incomplete) subscription and
    its first invoice, on the product whose ids (variants, add-on, selling plan) the sweep names in plan changes."""
    return ok(p.api.post("/v1/payment_intents", json={  # type: ignore[no-any-return]
        "payment_link_id": p.id("payment_link"),
        "primary_variant": {"variant_id": p.id("variant"), "selling_plan_id": p.id("selling_plan")}}))


FACTORIES: dict[str, Callable[[Party], dict[str, Any]]] = {
    "merchant": lambda p: {"id": p.merchant["merchant_id"]},
    "product": _product,
    "variant": lambda p: p.obj("product")["variants"][0],
    "addon_variant": lambda p: p.obj("product")["variants"][1],
    "selling_plan": lambda p: p.obj("product")["selling_plans"][0],
    # A selling-plan group over the party's product (its plans are the product's selling plans above).
    "selling_plan_group": lambda p: ok(p.api.post("/v1/selling_plan_groups", json={  # type: ignore[no-any-return]
        "name": "Subscribe and save", "product_ids": [p.id("product")]})),
    "payment_link": _payment_link,
    "customer": lambda p: seed.customer(p.api),
    "payment_intent": lambda p: seed.payment_intent(p.api),
    # A saved card (pm_…) of the party's customer.
    "payment_method": lambda p: _saved_card(p, livemode=False),
    # Not id kinds: the other mode's customer and saved card, and an intent of each mode's customer (a saved card
    # is only ever charged on an intent of its own customer).
    "live_customer": lambda p: seed.customer(p.live),
    "live_payment_method": lambda p: _saved_card(p, livemode=True),
    "customer_payment_intent": lambda p: _intent_for(p, "customer", p.api),
    "live_customer_payment_intent": lambda p: _intent_for(p, "live_customer", p.live),
    "webhook_endpoint": lambda p: seed.webhook_endpoint(p.api),
    "event": lambda p: (p.obj("payment_intent"), ok(p.api.get("/v1/events"))["events"][0])[1],
    "refund": _refund,
    "payout": _payout,
    "order": _order,
    "payroll": _payroll,
    # An approval instance is one per payout, refund or payout address: the party's payout's (DESIGN §17).
    "approval": lambda p: {"id": "apr_" + p.id("payout").split("_", 1)[1]},
    # A payout address (DESIGN §15): a fresh random one per party.
    "address": lambda p: ok(p.api.post("/v1/addresses", json={  # type: ignore[no-any-return]
        "network": "ETH-TEST", "address": "0x" + secrets.token_hex(20)})),
    "subscription": lambda p: {"id": p.obj("subscription_purchase")["subscription"]},
    "invoice": lambda p: {"id": p.obj("subscription_purchase")["invoice"]},
    # Not an id kind: the intent whose payment creates the subscription and invoice above.
    "subscription_purchase": _subscription_purchase,
    # Not an id kind: an identity method for ResolveIdentity's valid body.
    "ephemeral_token": lambda p: {"id": ok(p.api.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": "ann@example.com", "allow_create": True}))["token"]},
}
