from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel


class WalletCounter(SQLModel, table=True):
    """Counters shared by every process (`accounts`: the last BIP-44 account number handed out)."""

    __tablename__ = "wallet_counters"

    name: str = Field(primary_key=True, max_length=40)
    value: int = Field(default=0, sa_type=sa.BigInteger)


class WalletAccount(SQLModel, table=True):
    """A merchant's BIP-44 account in one mode, allocated once; `next_index` is its deposit address counter."""

    __tablename__ = "wallet_accounts"

    merchant_id: str = Field(foreign_key="merchants.id", primary_key=True, max_length=40)
    livemode: bool = Field(primary_key=True)
    account: int = Field(unique=True, sa_type=sa.BigInteger)
    next_index: int = Field(default=0, sa_type=sa.BigInteger)
    created: int = Field(sa_type=sa.BigInteger)


class PermanentDeposit(SQLModel, table=True):
    """A customer's reusable deposit address for one asset (intents with `permanent_deposit`)."""

    __tablename__ = "permanent_deposits"
    __table_args__ = (sa.UniqueConstraint("merchant_id", "livemode", "customer_id", "asset_id",
                                          name="uq_permanent_deposits_customer_asset"),)

    id: str = Field(primary_key=True, max_length=40)  # pd_…, the owner_id of its watched address
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    customer_id: str = Field(foreign_key="customers.id", max_length=40)
    asset_id: str = Field(max_length=60)
    network: str = Field(max_length=40)
    address: str = Field(max_length=80)
    address_index: int = Field(sa_type=sa.BigInteger)
    created: int = Field(sa_type=sa.BigInteger)
