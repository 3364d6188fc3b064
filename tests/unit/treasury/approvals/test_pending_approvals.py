"""The approvers' queue (`approvals.pending`): each waiting payout and refund with its trail, read in the same
number of queries whether one waits or many."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from server.context import Caller
from server.refunds.models import Refund
from server.treasury.approvals import service as approvals
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus
from server.treasury.approvals.trail import act
from server.treasury.payouts.models import Payout as PayoutRow
from tests.unit.treasury.approvals.test_approval_rule import paid_out
from tests.unit.treasury.ledger.test_ledger_sums import statements
from tests.unit.treasury.world import ETH, World, world  # noqa: F401


def waiting(w: World, m: str, payouts: int, refunds: int) -> None:
    """`payouts` payouts and `refunds` refunds waiting for two approvals, each with one approval given."""
    for _ in range(payouts):
        paid_out(w, m, ETH, "0.1", age=0, approval=ApprovalStatus.PENDING, status="pending")
    refund_ids = [w.refund(m, "1") for _ in range(refunds)]

    async def go() -> None:
        async with w.db.transaction() as s:
            for rf in (await s.exec(select(Refund).where(Refund.id.in_(refund_ids)))):  # type: ignore[attr-defined]
                rf.approval_status, rf.approvals_required = ApprovalStatus.PENDING, 2
                s.add(rf)
                act(s, rf, ApprovalActionKind.APPROVE, "key_a", "")
            for row in await s.exec(select(PayoutRow).where(PayoutRow.merchant_id == m)):
                row.approvals_required = 2
                s.add(row)
                act(s, row, ApprovalActionKind.APPROVE, "key_a", "")
    w.run(go())


def pending(w: World, m: str) -> list[Any]:
    return w.run(approvals.pending(w.rt, Caller(m, False, "secret", "key_b", "approver")))


def test_each_waiting_payout_and_refund_is_listed_with_its_own_trail(world: World) -> None:  # noqa: F811
    m = world.merchant()
    waiting(world, m, payouts=2, refunds=2)
    listed = pending(world, m)
    assert [d.resource_type for d in listed] == ["payout", "payout", "refund", "refund"]
    assert all(d.approvals_given == 1 and len(d.actions) == 1 for d in listed)
    assert [d.payout.id or d.refund.id for d in listed] == [d.resource_id for d in listed]


def test_the_queue_is_read_in_the_same_number_of_queries_for_one_waiting_or_many(world: World) -> None:  # noqa: F811
    few, many = world.merchant(), world.merchant()
    waiting(world, few, payouts=1, refunds=1)
    waiting(world, many, payouts=12, refunds=12)
    with statements(world) as one:
        assert len(pending(world, few)) == 2
    with statements(world) as twelve:
        assert len(pending(world, many)) == 24
    assert len(twelve) == len(one), twelve
