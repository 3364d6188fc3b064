"""The payout audit trail and the approval rule, written in the transaction of the action (DESIGN §15)."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.ids import new_id
from server.merchants.models import Merchant
from server.treasury.payout_models import ApprovalActionKind, PayoutApprovalAction
from server.treasury.payout_models import Payout as PayoutRow

VOTES = (ApprovalActionKind.APPROVE, ApprovalActionKind.REJECT)


async def required(session: AsyncSession, merchant_id: str, amount: Decimal) -> int:
    """Approvals a new payout of `amount` needs (0: none)."""
    merchant = await session.get(Merchant, merchant_id)
    if merchant is None or merchant.payout_approvals_required <= 0:
        return 0
    return merchant.payout_approvals_required if amount > merchant.payout_approval_threshold else 0


def act(session: AsyncSession, row: PayoutRow, action: ApprovalActionKind, key_id: str, comment: str = "") -> None:
    action_id = new_id("apa")
    session.add(PayoutApprovalAction(
        id=action_id, payout_id=row.id, merchant_id=row.merchant_id, action=action, key_id=key_id,
        voter_key=key_id if action in VOTES else action_id, comment=comment, created=now_of(session)))

