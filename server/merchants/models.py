from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import Column, Field, SQLModel

from server import clock
from server.db.types import DecimalText


class Merchant(SQLModel, table=True):
    __tablename__ = "merchants"

    id: str = Field(primary_key=True, max_length=40)
    name: str = Field(max_length=200)
    created: int = Field(sa_type=sa.BigInteger)
    # Read by no code since revision 0031 (four eyes is set per mode in `approval_settings`, which it copied these
    # into): kept so that processes from before it keep running through a deploy; a later revision drops them.
    payout_approvals_required: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    payout_approval_threshold: Decimal = Field(
        default=Decimal(0), sa_column=Column(DecimalText, nullable=False, server_default="0"))
    # The fiat the balance's totals are shown in (DESIGN §15: "the merchant's settlement fiat, USD by default").
    settlement_currency: str = Field(default="USD", max_length=10, sa_column_kwargs={"server_default": "USD"})


ROLE_APPROVER = "approver"
APPROVALS_ACTOR_CLI = "cli"  # the operator's command line (`paygate merchants set-approval`)


class ApprovalSetting(SQLModel, table=True):
    """Four eyes of one merchant in one mode as the operator chose it (DESIGN §15, §16), append-only: the newest row
    of a merchant and mode is in force, the older ones are the audit trail of the choice. No row: never chosen, so
    the default holds (1 approval once the merchant has an approver key in the mode:
    server/treasury/approvals/trail.py).
    A payout taking the day's unapproved payouts above `threshold` (in the settlement currency, at current rates)
    needs `approvals_required` approver keys' approvals; 0: none needed."""

    __tablename__ = "approval_settings"
    __table_args__ = (sa.Index("ix_approval_settings_merchant_mode", "merchant_id", "livemode", "sort_key"),)

    id: str = Field(primary_key=True, max_length=40)  # aps_…
    merchant_id: str = Field(foreign_key="merchants.id", max_length=40)
    livemode: bool
    approvals_required: int
    threshold: Decimal = Field(sa_column=Column(DecimalText, nullable=False))
    actor: str = Field(max_length=40)  # who chose (APPROVALS_ACTOR_CLI)
    created: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)


class ApiKey(SQLModel, table=True):
    """A secret key is stored only as its SHA-256 digest (`lookup`); a public key as itself."""

    __tablename__ = "api_keys"

    id: str = Field(primary_key=True, max_length=40)
    merchant_id: str = Field(foreign_key="merchants.id", index=True, max_length=40)
    livemode: bool
    kind: str = Field(max_length=10)  # "secret" or "public"
    lookup: str = Field(unique=True, max_length=100)
    hint: str = Field(max_length=40)
    # "" for a merchant's own keys; "approver": a secret key that may only use the approval API (DESIGN §15).
    role: str = Field(default="", max_length=20, sa_column_kwargs={"server_default": ""})
    created: int = Field(sa_type=sa.BigInteger)
    revoked_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    # A rolled key's end (`paygate merchants keys roll`): refused from this time on, like a revoked one; None:
    # it does not expire. Whether a key may be used is decided in one place: server/merchants/service.py `usable`.
    expires_at: int | None = Field(default=None, sa_type=sa.BigInteger)
