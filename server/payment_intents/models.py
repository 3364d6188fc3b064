from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType
from server.payment_intents.states import ChargeStatus

# The ways to pay (`payment_method_type` of intents and charges), as rows spell them; what each means is its handler's
# (methods.py), the only code that compares them.
CRYPTO = "crypto"
CARDS = "cards"


def _money(nullable: bool = False) -> Any:
    return Field(default=None if nullable else Decimal(0), sa_column=Column(DecimalText, nullable=nullable))


class PaymentIntent(SQLModel, table=True):
    __tablename__ = "payment_intents"
    __table_args__ = (
        sa.Index("ix_payment_intents_scope_newest", "merchant_id", "livemode", "sort_key"),
        sa.Index("ix_payment_intents_due", "status", "expired_at"),  # the expiry job's claim
        # The open purchases of a product, whose units they hold (server/products/stock.py).
        sa.Index("ix_payment_intents_link_product", "link_product_id", "status"),
    )

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    amount: Decimal = _money()
    currency: str = Field(max_length=60)
    customer_id: str | None = Field(default=None, foreign_key="customers.id", max_length=40, index=True)
    description: str = Field(default="", max_length=1000)
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    merchant_order_id: str = Field(default="", max_length=255, index=True)
    payment_method_type: str = Field(default="", max_length=20)
    receipt_email: str = Field(default="", max_length=255)
    return_url: str = Field(default="", max_length=2000)
    shipping_address: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    status: str = Field(max_length=30)
    complete_on_first_payment: bool = False
    permanent_deposit: bool = False
    permanent_deposit_asset_id: str = Field(default="", max_length=60)
    expired_at: int = Field(sa_type=sa.BigInteger)
    canceled_at: int = Field(default=0, sa_type=sa.BigInteger)
    cancellation_reason: str = Field(default="", max_length=255)
    # Payment link purchase: the link and what was bought, as priced at creation.
    payment_link_id: str | None = Field(default=None, max_length=40, index=True)
    link_snapshot: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    # A payment link purchase's product (`link_snapshot.product.id`), in a column of its own for the index above.
    link_product_id: str | None = Field(default=None, max_length=40)
    product_version: int | None = Field(default=None, sa_type=sa.BigInteger)
    # A payment link purchase made by the shopper's own client (the hosted page): that client's address bucket
    # (IPv6 by its /64), whose holds the per-shopper stock cap counts when there is no customer
    # (server/products/stock.py). Empty when the merchant's server made it.
    shopper_ip: str = Field(default="", max_length=100, sa_column_kwargs={"server_default": ""})
    # payment_details, maintained by the chain listener, in the paid asset.
    paid_asset_id: str = Field(default="", max_length=60)
    amount_captured: Decimal = _money()
    amount_refunded: Decimal = _money()
    tx_fee: Decimal = _money()
    tax_fee: Decimal = _money()
    frozen_amount: Decimal = _money()
    net_amount: Decimal = _money()
    network_fee: Decimal = _money()
    # Facts, not states: paid over the amount due; received after cancel or expiry.
    amount_overpaid: Decimal = _money()
    amount_received_late: Decimal = _money()
    created: int = Field(sa_type=sa.BigInteger)
    # Orders lists newest first, finer than the one-second `created`.
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)


_UNCONFIRMED = sa.text("provider_status = 'unconfirmed'")  # server/cards/payments.py UNCONFIRMED


class Charge(SQLModel, table=True):
    """One payment attempt: a quote in one asset and the deposit address that receives it."""

    __tablename__ = "charges"
    # Partial: only card charges whose confirmation went unanswered, which the scheduler asks about every few
    # seconds (server/cards/outcome.py `ask_unconfirmed`); empty almost always, however many charges there are.
    __table_args__ = (sa.Index("ix_charges_unconfirmed", "payment_intent_id", postgresql_where=_UNCONFIRMED,
                               sqlite_where=_UNCONFIRMED),
                      # A shopper's card attempts of the last hour (server/cards/velocity.py).
                      sa.Index("ix_charges_client_ip", "client_ip", "created"))

    id: str = Field(primary_key=True, max_length=40)
    payment_intent_id: str = Field(foreign_key="payment_intents.id", max_length=40, index=True)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    payment_method_type: str = Field(max_length=20)
    asset_id: str = Field(max_length=60)
    network: str = Field(max_length=40)
    amount: Decimal = _money()  # the quote, in the asset
    exchange_rate: Decimal = _money()
    deposit_address: str = Field(max_length=80)
    address_index: int = Field(sa_type=sa.BigInteger)
    permanent_deposit_id: str | None = Field(default=None, max_length=40, index=True)
    quote_expires_at: int = Field(sa_type=sa.BigInteger)
    # A transfer arriving this long after the quote lapsed still pays at its rate (settings.quote_grace_seconds
    # when the charge was opened; 30 for charges opened before it was a setting).
    quote_grace_seconds: int = Field(default=30, sa_column_kwargs={"server_default": "30"})
    status: str = Field(default=ChargeStatus.PENDING, max_length=20)
    amount_captured: Decimal = _money()
    frozen_amount: Decimal = _money()
    # Card charges (server/cards): the provider, its PaymentIntent, what the payer's page needs, and the outcome.
    payment_provider: str = Field(default="", max_length=20)
    provider_payment_id: str = Field(default="", max_length=100, index=True)
    provider_client_secret: str = Field(default="", max_length=255)
    provider_public_key: str = Field(default="", max_length=255)  # the merchant's publishable key, for the page
    # The caller's key of an off-session charge (a renewal): the same key never charges the card twice.
    idempotency_key: str = Field(default="", max_length=255, index=True)
    provider_status: str = Field(default="", max_length=40)
    saved_payment_method_id: str = Field(default="", max_length=40)
    save_payment_method: bool = False
    failure_code: str = Field(default="", max_length=100)
    failure_message: str = Field(default="", max_length=500)
    # Last read-through of a pending card charge (Unix seconds): asked at most every few seconds per charge.
    provider_checked_at: int = Field(default=0, sa_type=sa.BigInteger)
    # The address bucket of the shopper whose call opened this card attempt; "" when a merchant's secret key or
    # paygate itself opened it (server/cards/velocity.py counts by it).
    client_ip: str = Field(default="", max_length=100, sa_column_kwargs={"server_default": ""})
    created: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)


class ChargeTransfer(SQLModel, table=True):
    """Which charge a chain transfer pays, decided once when it is first seen (a permanent deposit address
    serves several intents in turn, so the transfer's owner alone does not say)."""

    __tablename__ = "charge_transfers"

    transfer_id: str = Field(primary_key=True, max_length=40)
    charge_id: str = Field(foreign_key="charges.id", max_length=40, index=True)
