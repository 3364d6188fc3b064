"""The payout audit trail and the four-eyes rule, written in the transaction of the action (DESIGN §15).

The rule (`required`). With `payout_approvals_required` above 0, a new payout needs that many approvals when what
the merchant would send out unapproved within a day is worth more than `payout_approval_threshold`, an amount in the
merchant's settlement currency (USD by default; `paygate merchants set-settlement-currency`): this payout's value
plus the value of the merchant's other payouts in the same mode created in the last 24 hours that did not need
approval or have it already (neither waiting for approval nor rejected, canceled or failed). Each is valued at
current rates, as the balance values assets (`balance.settlement_currency`, `rates.quotes.exchange_rate`), in
Decimal. So one threshold is the same money in every asset, and payouts split below it still add up to it. A value
that cannot be known (no rate for an asset or the settlement currency, or the settlement currency changed since the
rates were read) needs approval: the rule fails closed.

Rates may be network I/O, so they are read before the payout's transaction (`prices`); the rule itself runs in
`payouts.create`'s transaction, with the merchant's wallet account locked, so payouts created at once are summed one
after the other.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.assets.catalogue import Catalogue
from server.clock import now_of
from server.ids import new_id
from server.merchants.models import Merchant
from server.money import MONEY
from server.rates import RateSource, RateUnavailable
from server.rates.quotes import exchange_rate
from server.refunds.models import Refund
from server.treasury.balance import settlement_currency
from server.treasury.payout_models import ApprovalActionKind, ApprovalStatus, PayoutApprovalAction, PayoutStatus
from server.treasury.payout_models import Payout as PayoutRow

log = logging.getLogger("paygate.treasury.approval")
VOTES = (ApprovalActionKind.APPROVE, ApprovalActionKind.REJECT)
WINDOW_SECONDS = 24 * 3600
# Payouts that count toward the day's unapproved sum: sent, or to be sent, without waiting for approvers.
UNAPPROVED_OUT = (ApprovalStatus.NOT_REQUIRED, ApprovalStatus.APPROVED)
NOT_OUT = (PayoutStatus.REJECTED, PayoutStatus.CANCELED, PayoutStatus.FAILED)


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


async def recent_assets(session: AsyncSession, merchant: Merchant | None, livemode: bool, now: int) -> set[str]:
    """The assets of the payouts the rule will sum (none when the merchant needs no approvals)."""
    if merchant is None or merchant.payout_approvals_required <= 0:
        return set()
    return set(await session.exec(select(PayoutRow.asset_id).where(*_recent(merchant.id, livemode, now))))


async def prices(rates: RateSource, catalogue: Catalogue, merchant: Merchant | None, asset_ids: set[str]) -> Prices:
    """The rates the rule will need, read with no transaction open; none when the merchant needs no approvals."""
    if merchant is None or merchant.payout_approvals_required <= 0:
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
    """Approvals a new payout of `amount` `asset_id` needs (0: none), by the module's rule."""
    merchant = await session.get(Merchant, merchant_id)
    if merchant is None or merchant.payout_approvals_required <= 0:
        return 0
    needs = merchant.payout_approvals_required
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
    return needs if total > merchant.payout_approval_threshold else 0


def act(session: AsyncSession, row: PayoutRow | Refund, action: ApprovalActionKind, key_id: str,
        comment: str = "") -> None:
    """One action appended to the trail of a payout or of a refund that needs approval (`payout_id` holds either's
    id: one trail, one vote index, one approval API)."""
    action_id = new_id("apa")
    session.add(PayoutApprovalAction(
        id=action_id, payout_id=row.id, merchant_id=row.merchant_id, action=action, key_id=key_id,
        voter_key=key_id if action in VOTES else action_id, comment=comment, created=now_of(session)))
