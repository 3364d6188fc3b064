from __future__ import annotations

from sqlmodel import Field, SQLModel


class RateLimitBucket(SQLModel, table=True):
    """One token bucket (PostgreSQL only). Rows idle long enough to be full again are pruned: absent means full."""

    __tablename__ = "rate_limit_buckets"

    bucket: str = Field(primary_key=True, max_length=100)  # "key:<merchant>:<mode>", "cs:<digest>", "ip:<addr>"
    tokens: float  # a count of requests, not money
    updated_at: float  # epoch seconds of the database clock
    granted: float  # tokens the last take got, 0 when refused (read back by the same UPSERT … RETURNING)
    rate: float  # the limit in force at the last take: tokens per second …
    burst: float  # … and the bucket's size
