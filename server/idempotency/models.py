from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel


class IdempotencyKey(SQLModel, table=True):
    __tablename__ = "idempotency_keys"

    merchant_id: str = Field(primary_key=True, max_length=40)
    livemode: bool = Field(primary_key=True)
    key: str = Field(primary_key=True, max_length=255)
    method: str = Field(max_length=200)
    request_hash: str = Field(max_length=64)
    state: str = Field(max_length=12)  # "in_progress", "committed" or "done" (server/idempotency/store.py)
    locked_until: int = Field(sa_type=sa.BigInteger)
    status_code: int = 0  # the gRPC status code of the stored outcome
    response: bytes | None = Field(default=None, sa_type=sa.LargeBinary)
    created: int = Field(sa_type=sa.BigInteger)
    expires_at: int = Field(sa_type=sa.BigInteger, index=True)
