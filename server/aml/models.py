from __future__ import annotations

from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Field, SQLModel


class CheckStatus(StrEnum):
    PENDING = "pending"  # asked, not decided
    APPROVED = "approved"  # the verdict, as the transfer's aml_status
    REJECTED = "rejected"


class AmlCheck(SQLModel, table=True):
    """The screening of one transfer: pending until a screener decides, then its verdict (an audit record)."""

    __tablename__ = "aml_checks"
    __table_args__ = (sa.Index("ix_aml_checks_network_status", "network", "status"),)

    transfer_id: str = Field(primary_key=True, max_length=40)  # one check per ChainTransfer
    network: str = Field(max_length=40)
    screener: str = Field(max_length=40)
    status: str = Field(max_length=12)  # CheckStatus
    info: str = Field(default="", max_length=500)
    attempts: int = 0  # how often an asynchronous screener was asked without deciding
    requested_at: int = Field(sa_type=sa.BigInteger)
    decided_at: int = Field(default=0, sa_type=sa.BigInteger)
