"""The payout audit trail and the four-eyes rule, written in the transaction of the action (DESIGN §15, §16).

Who must approve (`rule_of`). The operator's choice for the merchant and mode (`paygate merchants set-approval
--mode test|live`, the newest `approval_settings` row) holds when there is one; a merchant that never chose needs 1
approval in a mode where it has an approver key, none where it has none. In live mode, money leaving for an address
the caller names (a payout, a refund to an address other than the payer's) is refused (`approval_required`) while
the merchant has no live approver key, unless the operator turned live approvals off explicitly (0): one leaked live
key must not be enough to pay out.

The rule (`required`). With approvals above 0, a new payout needs that many approvals when what the merchant would
send out unapproved within a day is worth more than the threshold, an amount in the merchant's settlement currency
(USD by default; `paygate merchants set-settlement-currency`): this payout's value plus the value of the merchant's
other payouts in the same mode created in the last 24 hours that did not need approval or have it already (neither
waiting for approval nor rejected, canceled or failed). Each is valued at current rates, as the balance values
assets (`balance.settlement_currency`, `rates.quotes.exchange_rate`), in Decimal. So one threshold is the same money
in every asset, and payouts split below it still add up to it. A value that cannot be known (no rate for an asset or
the settlement currency, or the settlement currency changed since the rates were read) needs approval: the rule
fails closed.

Rates may be network I/O, so they are read before the payout's transaction (`prices`); the rule itself runs in
`payouts.create`'s transaction, with the merchant's wallet account locked, so payouts created at once are summed one
after the other.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlmodel import col, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Catalogue
from server.clock import now_of
from server.errors import InvalidArgument
from server.ids import new_id
from server.merchants.models import ROLE_APPROVER, ApiKey, ApprovalSetting, Merchant
from server.money import MONEY
from server.rates import RateSource, RateUnavailable
from server.rates.quotes import exchange_rate
from server.refunds.models import Refund
from server.treasury.approvals.models import ApprovalActionKind, ApprovalStatus, PayoutApprovalAction
from server.treasury.ledger.balance import settlement_currency
from server.treasury.payouts.models import Payout as PayoutRow
from server.treasury.payouts.models import PayoutStatus

log = logging.getLogger("paygate.treasury.approval")
VOTES = (ApprovalActionKind.APPROVE, ApprovalActionKind.REJECT)
WINDOW_SECONDS = 24 * 3600
# Payouts that count toward the day's unapproved sum: sent, or to be sent, without waiting for approvers.
UNAPPROVED_OUT = (ApprovalStatus.NOT_REQUIRED, ApprovalStatus.APPROVED)
NOT_OUT = (PayoutStatus.REJECTED, PayoutStatus.CANCELED, PayoutStatus.FAILED)


class ApprovalRequired(InvalidArgument):
    reason = "approval_required"


@dataclass(frozen=True)
class Rule:
    """Four eyes of one merchant in one mode (`rule_of`)."""

    approvals: int  # approvals a payout above the threshold needs; 0: none
    threshold: Decimal
    # Live, no approver key and never turned off: nothing leaves for an address the caller names.
    refused: bool = False


async def rule_of(session: AsyncSession, merchant_id: str, livemode: bool) -> Rule:
    chosen = (await session.exec(select(ApprovalSetting).where(
        ApprovalSetting.merchant_id == merchant_id, ApprovalSetting.livemode == livemode)
        .order_by(col(ApprovalSetting.sort_key).desc()).limit(1))).first()
    if chosen is not None and chosen.approvals_required <= 0:
        return Rule(0, chosen.threshold)  # turned off on purpose: the operator's choice, on record
    # A key that works now (as server/merchants/service.py `usable` decides: not revoked, not past a roll's end).
    approver = (await session.exec(select(ApiKey.id).where(
        ApiKey.merchant_id == merchant_id, ApiKey.livemode == livemode, ApiKey.role == ROLE_APPROVER,
        col(ApiKey.revoked_at).is_(None),
        or_(col(ApiKey.expires_at).is_(None), col(ApiKey.expires_at) > now_of(session))).limit(1))).first() is not None
    refused = livemode and not approver  # approvals nobody could give are refused too, not left to expire
    if chosen is not None:
        return Rule(chosen.approvals_required, chosen.threshold, refused)
    return Rule(1 if approver else 0, Decimal(0), refused)


def refuse_unless_allowed(rule: Rule, merchant_id: str, what: str) -> None:
    """`what`: the money out, as the message names it ("payouts")."""
    if rule.refused:
        raise ApprovalRequired(
            f"{what} in live mode need an approver's approval and merchant {merchant_id} has no live approver key: "
            f"add an approver key (paygate merchants keys create --merchant {merchant_id} --mode live --role "
            f"approver) or set approvals explicitly (paygate merchants set-approval --merchant {merchant_id} "
            "--mode live --approvals N)")


@dataclass(frozen=True)
class Prices:
    """One unit of each asset in the merchant's settlement currency (`settlement`, its code when read); an asset
    without a rate is left out."""

    settlement: str = ""
    of: dict[str, Decimal] = field(default_factory=dict)


def _recent(merchant_id: str, livemode: bool, now: int) -> list[Any]:
    """The merchant's payouts of the last 24 hours in this mode that went, or go, out without waiting for approvers."""
    return [PayoutRow.merchant_id == merchant_id, PayoutRow.livemode == livemode,
            col(PayoutRow.created) >= now - WINDOW_SECONDS, col(PayoutRow.approval_status).in_(UNAPPROVED_OUT),
            col(PayoutRow.status).not_in(NOT_OUT)]


async def recent_assets(session: AsyncSession, rule: Rule, merchant_id: str, livemode: bool, now: int) -> set[str]:
    """The assets of the payouts the rule will sum (none when the merchant needs no approvals)."""
    if rule.approvals <= 0:
        return set()
    return set(await session.exec(select(PayoutRow.asset_id).where(*_recent(merchant_id, livemode, now))))


async def prices(rates: RateSource, catalogue: Catalogue, merchant: Merchant | None, rule: Rule,
                 asset_ids: set[str]) -> Prices:
    """The rates the rule will need, read with no transaction open; none when the merchant needs no approvals."""
    if merchant is None or rule.approvals <= 0:
        return Prices()
    currency = settlement_currency(catalogue, merchant)
    found: dict[str, Decimal] = {}
    for each in sorted(asset_ids):
        asset = catalogue.by_id.get(each)
        try:
            if asset is not None:
                found[each] = await exchange_rate(rates, asset, currency)
        except RateUnavailable as e:
            log.warning("no rate to value a payout: it needs approval", extra={"asset": each, "error": str(e)})
    return Prices(merchant.settlement_currency, found)


async def required(session: AsyncSession, merchant_id: str, livemode: bool, asset_id: str, amount: Decimal,
                   known: Prices, now: int) -> int:
    """Approvals a new payout of `amount` `asset_id` needs (0: none), by the module's rule; `ApprovalRequired` when
    it may not be made at all."""
    rule = await rule_of(session, merchant_id, livemode)  # again in the transaction: a key revoked since counts
    refuse_unless_allowed(rule, merchant_id, "payouts")
    merchant = await session.get(Merchant, merchant_id)
    if merchant is None or rule.approvals <= 0:
        return 0
    needs = rule.approvals
    if known.settlement != merchant.settlement_currency:
        return needs
    others = await session.exec(select(col(PayoutRow.asset_id), col(PayoutRow.amount)).where(
        *_recent(merchant_id, livemode, now)))
    total = Decimal(0)
    for each, value in [(asset_id, amount), *others]:
        rate = known.of.get(each)
        if rate is None:
            return needs  # fail closed: a value nobody can tell is not below the threshold
        total = MONEY.add(total, MONEY.multiply(value, rate))
    return needs if total > rule.threshold else 0


def act(session: AsyncSession, row: PayoutRow | Refund, action: ApprovalActionKind, key_id: str,
        comment: str = "") -> None:
    """One action appended to the trail of a payout or of a refund that needs approval (`payout_id` holds either's
    id: one trail, one vote index, one approval API)."""
    action_id = new_id("apa")
    session.add(PayoutApprovalAction(
        id=action_id, payout_id=row.id, merchant_id=row.merchant_id, action=action, key_id=key_id,
        voter_key=key_id if action in VOTES else action_id, comment=comment, created=now_of(session)))
