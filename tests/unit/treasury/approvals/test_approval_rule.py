"""The four-eyes rule (server/treasury/approvals/trail.py): what the merchant sends out unapproved within 24 hours, in
its settlement currency at current rates, against its threshold; a value nobody can tell needs approval."""

from __future__ import annotations

import logging
from decimal import Decimal

import pytest
from sqlmodel import select

from server.ids import new_id
from server.merchants.models import ROLE_APPROVER, ApiKey, ApprovalSetting, Merchant
from server.merchants.service import create_role_key, revoke_key
from server.rates import TableRates
from server.treasury.approvals import trail as approval_trail
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus, PayoutApprovalAction
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.models import PayoutStatus
from tests.unit.treasury.world import ETH, USDT, World, world  # noqa: F401

RATES = TableRates([("USD", Decimal(1)), ("EUR", Decimal("1.08")), ("USDT", Decimal(1)), ("ETH", Decimal(3000))])
DAY = 24 * 3600


def choose(w: World, m: str, approvals: int, threshold: str = "0", livemode: bool = False) -> None:
    """The operator's choice, as `paygate merchants set-approval` records it."""
    async def go() -> None:
        async with w.db.transaction() as s:
            s.add(ApprovalSetting(id=new_id("aps"), merchant_id=m, livemode=livemode, approvals_required=approvals,
                                  threshold=Decimal(threshold), actor="cli", created=w.db.clock.now()))
    w.run(go())


def four_eyes(w: World, m: str, threshold: str, currency: str = "USD") -> None:
    choose(w, m, 2, threshold)

    async def go() -> None:
        async with w.db.transaction() as s:
            merchant = await s.get(Merchant, m)
            assert merchant is not None
            merchant.settlement_currency = currency
            s.add(merchant)
    w.run(go())


def approver_key(w: World, m: str, livemode: bool) -> str:
    async def go() -> str:
        async with w.db.transaction() as s:
            row, _ = await create_role_key(s, m, livemode, ROLE_APPROVER)
            return row.id
    return w.run(go())  # type: ignore[no-any-return]


def rule(w: World, m: str, livemode: bool) -> approval_trail.Rule:
    async def go() -> approval_trail.Rule:
        async with w.db.read() as s:
            return await approval_trail.rule_of(s, m, livemode)
    return w.run(go())  # type: ignore[no-any-return]


def paid_out(w: World, m: str, asset_id: str, amount: str, age: int,
             approval: str = ApprovalStatus.NOT_REQUIRED, status: str = PayoutStatus.PAID) -> None:
    """A payout of the merchant's created `age` seconds ago."""
    async def go() -> None:
        async with w.db.transaction() as s:
            when = w.db.clock.now() - age
            s.add(PayoutRow(id=new_id("payout"), merchant_id=m, livemode=False, asset_id=asset_id, network="ETH-TEST",
                            decimals=18 if asset_id == ETH else 6, amount=Decimal(amount), merchant_address_id="ma_1",
                            address="0x" + "c" * 40, status=status, approval_status=approval, created=when,
                            updated=when))
    w.run(go())


def required(w: World, m: str, asset_id: str, amount: str, rates: TableRates = RATES) -> int:
    async def go() -> int:
        now = w.db.clock.now()
        async with w.db.read() as s:
            merchant = await s.get(Merchant, m)
            found = await approval_trail.rule_of(s, m, False)
            summed = await approval_trail.recent_assets(s, found, m, False, now)
        known = await approval_trail.prices(rates, w.rt.catalogue, merchant, found, summed | {asset_id})
        async with w.db.transaction() as s:
            return await approval_trail.required(s, m, False, asset_id, Decimal(amount), known, now)
    return w.run(go())


def test_the_threshold_is_money_in_the_settlement_currency(world: World) -> None:  # noqa: F811
    m = world.merchant()
    four_eyes(world, m, "100", currency="EUR")  # 100 EUR = 108 USD
    assert required(world, m, USDT, "107") == 0
    assert required(world, m, USDT, "109") == 2
    assert required(world, m, ETH, "0.035") == 0  # 105 USD
    assert required(world, m, ETH, "0.037") == 2  # 111 USD


def test_payouts_of_the_last_24_hours_that_needed_no_approval_add_up(world: World) -> None:  # noqa: F811
    m = world.merchant()
    four_eyes(world, m, "100")
    paid_out(world, m, ETH, "0.02", age=3600)  # 60 USD
    assert required(world, m, USDT, "40") == 0
    assert required(world, m, USDT, "41") == 2


def test_older_waiting_refused_or_undone_payouts_do_not_count(world: World) -> None:  # noqa: F811
    m = world.merchant()
    four_eyes(world, m, "100")
    paid_out(world, m, USDT, "1000", age=DAY + 60)  # more than a day ago
    paid_out(world, m, USDT, "1000", age=60, approval=ApprovalStatus.PENDING, status=PayoutStatus.PENDING)
    paid_out(world, m, USDT, "1000", age=60, approval=ApprovalStatus.REJECTED, status=PayoutStatus.REJECTED)
    paid_out(world, m, USDT, "1000", age=60, status=PayoutStatus.CANCELED)
    paid_out(world, m, USDT, "1000", age=60, status=PayoutStatus.FAILED)
    assert required(world, m, USDT, "100") == 0
    paid_out(world, m, USDT, "1", age=60, approval=ApprovalStatus.APPROVED, status=PayoutStatus.IN_TRANSIT)
    assert required(world, m, USDT, "100") == 2  # one that passed approval counts


def test_a_payout_whose_value_cannot_be_told_needs_approval(world: World) -> None:  # noqa: F811
    m = world.merchant()
    four_eyes(world, m, "1000000")
    no_eth = TableRates([("USD", Decimal(1)), ("USDT", Decimal(1))])
    assert required(world, m, ETH, "0.0001", rates=no_eth) == 2
    paid_out(world, m, ETH, "0.0001", age=60)
    assert required(world, m, USDT, "1", rates=no_eth) == 2  # nor when an earlier one of the day cannot be valued
    assert required(world, m, USDT, "1") == 0


def test_without_approvals_required_nothing_is_valued(world: World) -> None:  # noqa: F811
    m = world.merchant()
    assert required(world, m, ETH, "1000", rates=TableRates([])) == 0


def test_a_merchant_that_never_chose_needs_one_approval_in_a_mode_where_it_has_an_approver_key(
        world: World) -> None:  # noqa: F811
    m = world.merchant()
    assert rule(world, m, False) == approval_trail.Rule(0, Decimal(0))
    approver_key(world, m, livemode=False)
    assert rule(world, m, False) == approval_trail.Rule(1, Decimal(0))
    assert required(world, m, USDT, "0.01") == 1


def test_live_mode_without_an_approver_key_is_refused_until_one_is_added(world: World) -> None:  # noqa: F811
    m = world.merchant()
    approver_key(world, m, livemode=False)  # a test-mode approver does not approve live money
    assert rule(world, m, True).refused
    approver_key(world, m, livemode=True)
    assert rule(world, m, True) == approval_trail.Rule(1, Decimal(0), refused=False)


def test_live_approvals_turned_off_explicitly_are_not_refused(world: World) -> None:  # noqa: F811
    m = world.merchant()
    choose(world, m, 0, livemode=True)
    assert rule(world, m, True) == approval_trail.Rule(0, Decimal(0), refused=False)
    assert rule(world, m, False) == approval_trail.Rule(0, Decimal(0))  # the other mode is not touched


def test_live_approvals_nobody_could_give_are_refused(world: World) -> None:  # noqa: F811
    m = world.merchant()
    choose(world, m, 2, livemode=True)
    assert rule(world, m, True).refused


def test_the_newest_choice_holds(world: World) -> None:  # noqa: F811
    m = world.merchant()
    approver_key(world, m, livemode=False)
    choose(world, m, 3, "50")
    choose(world, m, 0)
    assert rule(world, m, False) == approval_trail.Rule(0, Decimal(0))
    choose(world, m, 2, "10")
    assert rule(world, m, False) == approval_trail.Rule(2, Decimal(10))


def test_a_revoked_approver_key_does_not_count(world: World) -> None:  # noqa: F811
    m = world.merchant()
    key_id = approver_key(world, m, livemode=True)

    async def revoke() -> None:
        async with world.db.transaction() as s:
            await revoke_key(s, m, key_id)
    world.run(revoke())
    assert rule(world, m, True).refused


def test_a_refusal_names_the_two_commands_that_lift_it() -> None:
    with pytest.raises(approval_trail.ApprovalRequired) as refused:
        approval_trail.refuse_unless_allowed(approval_trail.Rule(1, Decimal(0), refused=True), "mch_1", "payouts")
    assert str(refused.value).startswith("payouts in live mode need an approver's approval")
    assert "(paygate merchants keys create --merchant mch_1 --mode live --role approver)" in str(refused.value)
    assert "(paygate merchants set-approval --merchant mch_1 --mode live --approvals N)" in str(refused.value)


def test_another_merchants_approver_key_does_not_count(world: World) -> None:  # noqa: F811
    m, other = world.merchant(), world.merchant()
    approver_key(world, other, livemode=True)
    assert rule(world, m, True).refused
    assert rule(world, m, False) == approval_trail.Rule(0, Decimal(0))


def test_another_merchants_choice_does_not_apply(world: World) -> None:  # noqa: F811
    m, other = world.merchant(), world.merchant()
    approver_key(world, m, livemode=False)
    choose(world, other, 0)
    choose(world, other, 3, "5", livemode=True)
    assert rule(world, m, False) == approval_trail.Rule(1, Decimal(0))


def test_the_other_modes_choice_does_not_apply(world: World) -> None:  # noqa: F811
    m = world.merchant()
    approver_key(world, m, livemode=False)
    choose(world, m, 3, "5", livemode=True)
    assert rule(world, m, False) == approval_trail.Rule(1, Decimal(0))


def test_a_choice_of_one_approval_is_kept(world: World) -> None:  # noqa: F811
    m = world.merchant()
    approver_key(world, m, livemode=False)
    choose(world, m, 1, "25")
    assert rule(world, m, False) == approval_trail.Rule(1, Decimal(25))


def _expire(world: World, key_id: str, at: int) -> None:  # noqa: F811
    async def go() -> None:
        async with world.db.transaction() as s:
            key = await s.get(ApiKey, key_id)
            assert key is not None
            key.expires_at = at
            s.add(key)
    world.run(go())


def test_an_approver_key_past_its_rolls_end_does_not_count(world: World) -> None:  # noqa: F811
    m = world.merchant()
    key_id = approver_key(world, m, livemode=True)
    _expire(world, key_id, world.db.clock.now() - 1)
    assert rule(world, m, True).refused


def test_an_approver_key_ending_this_second_no_longer_counts(world: World) -> None:  # noqa: F811
    m = world.merchant()
    key_id = approver_key(world, m, livemode=True)
    _expire(world, key_id, world.db.clock.now())
    assert rule(world, m, True).refused


def test_an_approver_key_rolled_but_still_in_its_grace_counts(world: World) -> None:  # noqa: F811
    m = world.merchant()
    key_id = approver_key(world, m, livemode=True)
    _expire(world, key_id, world.db.clock.now() + 3600)
    assert rule(world, m, True) == approval_trail.Rule(1, Decimal(0), refused=False)


def _trail_after(world: World, m: str, *actions: tuple[ApprovalActionKind, str, str]) -> list[PayoutApprovalAction]:  # noqa: F811
    """The trail rows `act` appends for a payout of `m`, one per (action, key id, comment; "" leaves the default)."""
    async def go() -> list[PayoutApprovalAction]:
        now = world.db.clock.now()
        async with world.db.transaction() as s:
            row = PayoutRow(id=new_id("payout"), merchant_id=m, livemode=False, asset_id=USDT, network="ETH-TEST",
                            decimals=6, amount=Decimal(1), merchant_address_id="ma_1", address="0x" + "c" * 40,
                            status=PayoutStatus.PENDING, approval_status=ApprovalStatus.PENDING, created=now,
                            updated=now)
            s.add(row)
            await s.flush()
            for action, key_id, comment in actions:
                if comment:
                    approval_trail.act(s, row, action, key_id, comment)
                else:
                    approval_trail.act(s, row, action, key_id)
        async with world.db.read() as s:
            return list((await s.exec(select(PayoutApprovalAction).where(
                PayoutApprovalAction.payout_id == row.id))).all())
    return world.run(go())  # type: ignore[no-any-return]


def test_a_vote_is_recorded_with_its_key_and_comment_and_counts_once_per_key(world: World) -> None:  # noqa: F811
    m = world.merchant()
    (vote,) = _trail_after(world, m, (ApprovalActionKind.APPROVE, "key_approver1", "looks right"))
    assert vote.id.startswith("apa_") and vote.merchant_id == m
    assert (vote.action, vote.key_id, vote.comment) == ("approve", "key_approver1", "looks right")
    assert vote.voter_key == "key_approver1"  # the vote index: one vote per key


def test_an_action_that_is_not_a_vote_never_takes_a_keys_vote(world: World) -> None:  # noqa: F811
    m = world.merchant()
    (sent,) = _trail_after(world, m, (ApprovalActionKind.SENT, "", ""))
    assert (sent.action, sent.key_id, sent.comment) == ("sent", "", "")
    assert sent.voter_key == sent.id  # unique per action: it never collides with a vote


def test_one_approval_above_a_threshold_leaves_smaller_payouts_unapproved(world: World) -> None:  # noqa: F811
    m = world.merchant()
    choose(world, m, 1, "100")
    paid_out(world, m, USDT, "60", age=60)
    assert required(world, m, USDT, "40") == 0
    assert required(world, m, USDT, "41") == 1


def test_a_payout_without_a_rate_is_logged_with_its_asset(
        world: World, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    m = world.merchant()
    four_eyes(world, m, "1000000")
    caplog.set_level(logging.WARNING, logger="paygate.treasury.approval")
    assert required(world, m, ETH, "0.0001", rates=TableRates([("USD", Decimal(1))])) == 2
    (line,) = [r for r in caplog.records if r.getMessage() == "no rate to value a payout: it needs approval"]
    assert line.asset == ETH and line.error
