"""Approval rows: the four-eyes trail of payouts, refunds and payout addresses (DESIGN §15)."""

from __future__ import annotations

from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from server import clock
from server.treasury.approvals import states as approval_states

# The statuses are their state machine's (approvals/states.py); named here for the columns' readers.
ApprovalStatus = approval_states.Status


class ApprovalActionKind(StrEnum):
    CREATE = "create"
    APPROVE = "approve"
    REJECT = "reject"
    CANCEL = "cancel"
    SENT = "sent"
    EXPIRE = "expire"  # paygate's own: the approvers did not decide in time


class PayoutApprovalAction(SQLModel, table=True):
    """The audit trail of a payout (append-only): who did what, when. At most one vote per key and payout."""

    __tablename__ = "payout_approval_actions"
    __table_args__ = (
        sa.Index("ix_payout_approval_actions_payout", "payout_id", "sort_key"),
        # One vote (approve or reject) per key: a second, even a concurrent one, is refused by the database.
        sa.Index("ux_payout_approval_votes", "payout_id", "voter_key", unique=True),
    )

    id: str = Field(primary_key=True, max_length=40)  # apa_…
    payout_id: str = Field(max_length=40)
    merchant_id: str = Field(max_length=40)
    action: str = Field(max_length=12)
    key_id: str = Field(default="", max_length=40)
    # The key id for votes, the action's own id otherwise (so that the unique index only binds votes).
    voter_key: str = Field(max_length=40)
    comment: str = Field(default="", max_length=1000)
    created: int = Field(sa_type=sa.BigInteger)
    sort_key: int = Field(default_factory=clock.sort_key, sa_type=sa.BigInteger)
