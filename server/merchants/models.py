from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel


class Merchant(SQLModel, table=True):
    __tablename__ = "merchants"

    id: str = Field(primary_key=True, max_length=40)
    name: str = Field(max_length=200)
    created: int = Field(sa_type=sa.BigInteger)


class ApiKey(SQLModel, table=True):
    """A secret key is stored only as its SHA-256 digest (`lookup`); a public key as itself."""

    __tablename__ = "api_keys"

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", index=True, max_length=40)
    livemode: bool
    kind: str = Field(max_length=10)  # "secret" or "public"
    lookup: str = Field(unique=True, max_length=100)
    hint: str = Field(max_length=40)
    created: int = Field(sa_type=sa.BigInteger)
    revoked_at: int | None = Field(default=None, sa_type=sa.BigInteger)
