"""Card rows: a merchant's card provider keys per mode, and the cards saved for its customers. No card number, ever."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel


class ProviderAccount(SQLModel, table=True):
    """A merchant's keys at a card provider in one mode. The secret key and the webhook secret are sealed
    (server/sealing.py); the publishable key is public by design (the payer's browser gets it)."""

    __tablename__ = "provider_accounts"

    merchant_id: str = Field(foreign_key="merchants.id", primary_key=True, max_length=40)
    livemode: bool = Field(primary_key=True)
    provider: str = Field(default="provider_a", primary_key=True, max_length=20)
    secret_key: str = Field(max_length=1000)  # fernet:… (sealed)
    publishable_key: str = Field(max_length=255)
    webhook_secret: str = Field(default="", max_length=1000)  # fernet:… (sealed) or empty
    created: int = Field(sa_type=sa.BigInteger)
    updated: int = Field(sa_type=sa.BigInteger)


class SavedPaymentMethod(SQLModel, table=True):
    """A card saved for a customer at a card provider: what the spec's SavedPaymentMethod shows, and the provider's
    ids."""

    __tablename__ = "saved_payment_methods"
    __table_args__ = (sa.Index("ix_saved_payment_methods_customer", "customer_id", "fingerprint"),)

    id: str = Field(primary_key=True, max_length=40)  # pm_…
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    customer_id: str = Field(foreign_key="customers.id", max_length=40)
    provider: str = Field(default="provider_a", max_length=20)
    provider_customer_id: str = Field(max_length=100)
    provider_payment_method_id: str = Field(max_length=100)
    type: str = Field(default="card", max_length=20)
    brand: str = Field(default="", max_length=40)
    last4: str = Field(default="", max_length=4)
    funding: str = Field(default="", max_length=20)
    exp_month: int = 0
    exp_year: int = 0
    country: str = Field(default="", max_length=2)
    fingerprint: str = Field(default="", max_length=100)
    created: int = Field(sa_type=sa.BigInteger)
