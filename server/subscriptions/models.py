"""Subscription rows. What the API shows beyond these (names, prices, tiers) is derived from the product, the
customer and the merchant at read time (server/subscriptions/convert.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText, JSONType


class Subscription(SQLModel, table=True):
    __tablename__ = "subscriptions"
    __table_args__ = (
        sa.Index("ix_subscriptions_scope_newest", "merchant_id", "livemode", "sort_key"),
        # The renewal job's claim: rows whose next period end (or scheduled cancel) has come.
        # The scheduler's claim: the earliest time anything falls due (a period end, an auto-resume, a dunning step).
        sa.Index("ix_subscriptions_due_at", "due_at"),
    )

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    customer_id: str | None = Field(default=None, foreign_key="customers.id", max_length=40, index=True)
    product_id: str = Field(foreign_key="products.id", max_length=40)
    variant_id: str = Field(max_length=40)
    selling_plan_id: str = Field(max_length=40)
    quantity: int = 1
    currency: str = Field(max_length=20)
    decimals: int = 2  # of `currency`, kept so that amounts are rounded without the catalogue
    status: str = Field(max_length=20, index=True)
    collection_method: str = Field(default="send_invoice", max_length=30)
    default_payment_method_id: str = Field(default="", max_length=40)
    default_payment_method_type: str = Field(default="", max_length=20)
    default_provider_type: str = Field(default="", max_length=20)
    payment_method_brand: str = Field(default="", max_length=20)
    payment_method_last4: str = Field(default="", max_length=4)
    external_id: str = Field(default="", max_length=255, index=True)
    metadata_: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSONType, nullable=False))
    # Cycle boundaries are computed from the anchor: boundary(anchor, cycle, periods_since_anchor) is the start of
    # the current period (server/subscriptions/cycles.py).
    billing_cycle_anchor: int = Field(default=0, sa_type=sa.BigInteger)
    periods_since_anchor: int = 0
    current_period_start: int = Field(default=0, sa_type=sa.BigInteger)
    current_period_end: int = Field(default=0, sa_type=sa.BigInteger)
    current_cycle_number: int = 0
    # When the renewal job must look at it: the current period end while no renewal invoice is outstanding.
    renew_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    # The renew_at whose advance notices (invoice.upcoming, subscription.trial_will_end) were sent: each once.
    notified_for: int | None = Field(default=None, sa_type=sa.BigInteger)
    # min(renew_at, resumes_at while paused, the outstanding invoice's next attempt, the next notice); None when
    # nothing is due.
    due_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    trial_start: int | None = Field(default=None, sa_type=sa.BigInteger)
    trial_end: int | None = Field(default=None, sa_type=sa.BigInteger)
    canceled_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    cancel_reason: str | None = Field(default=None, max_length=255)
    cancel_at_period_end: bool = False
    ended_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    paused_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    pause_collection_behavior: str | None = Field(default=None, max_length=30)
    resumes_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    latest_invoice_id: str = Field(default="", max_length=40)
    first_payment_intent_id: str = Field(default="", max_length=40, index=True)
    payment_url: str | None = Field(default=None, max_length=2000)
    payment_expires_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    # A plan change deferred to the period end (the API's pending_update, stored as computed).
    pending_update: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    # Credit left over by a plan change, taken off the next invoice(s).
    credit_balance: Decimal = Field(default=Decimal(0), sa_column=Column(DecimalText, nullable=False))
    # Test mode: the subscription's own clock, "now" for everything done to it; None until first advanced.
    test_clock: int | None = Field(default=None, sa_type=sa.BigInteger)
    created_at: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
    updated_at: int = Field(sa_type=sa.BigInteger)

    def time_at(self, now: int) -> int:
        """The subscription's time when the runtime's clock reads `now`: its test clock once advanced, else `now`."""
        return self.test_clock if self.test_clock is not None else now
