from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock


class Event(SQLModel, table=True):
    """One thing that happened to one object, with the object as the API showed it at that moment."""

    __tablename__ = "events"
    __table_args__ = (
        sa.Index("ix_events_scope_newest", "merchant_id", "livemode", "sort_key"),
        sa.Index("ix_events_object", "object_id", "sort_key"),
    )

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    type: str = Field(max_length=100, index=True)
    api_version: str = Field(max_length=10)
    object_type: str = Field(max_length=40)
    object_id: str = Field(max_length=40)
    # The JSON text of {"object": {...}, "previous_attributes": {...} or null}. Text, not a JSON column: the
    # snapshot's decimal numbers (customer totals) keep their exact digits, which a JSON column's float round trip
    # would not.
    data: str = Field(sa_column=Column(sa.Text, nullable=False))
    created: int = Field(sa_type=sa.BigInteger, index=True)
    # Orders events of one object, finer than the one-second `created`.
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
