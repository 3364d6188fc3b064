"""The ledger: every movement of a merchant's money is one posting of two or more legs summing to zero, written in
the caller's transaction (the cause's), never updated or deleted. Balances are sums of legs, never counters.

Two ways to post:
* `post(...)`: explicit legs (a sweep, a payout sent, a network fee).
* `settle_cause(...)`: a cause whose money sits in exactly one place at a time (an incoming transfer: pending, then
  available + fees or frozen; a refund: locked, then outflow or back to available). The caller names where the
  cause's money should be now; the posting moves it there from where the ledger says it is. Idempotent: calling it
  twice with the same state posts nothing the second time, so a listener that runs again after a retry is harmless.

What is in it: money paygate holds for a merchant on chain (deposit addresses and the treasury), and every network fee
those addresses pay (`network_fee`, `pay_out_of`: never below the merchant's available funds; the rest is the
address's own `gas` holder). Treasury transactions reserve what they can cost before they are signed and wait when
neither the merchant's available coin nor hand-funded gas coin covers it, so paygate's fees never pay gas
(server/treasury/gas.py). Card payments and card refunds are not: they settle at the card provider, in the
merchant's own provider account, and the provider pays them out and back; paygate never holds that money, so posting
it would show a balance paygate cannot pay out and mix provider money into chain balances. The balance
(`GET /v1/stats/balance`) and reconciliation therefore only ever see chain places
(tests/e2e/cards/test_card_money_off_ledger.py). Should card money ever be posted, it must be at a provider place
(`network` naming the provider, never a chain address) so that reconciliation and sweeps leave it alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, localcontext

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.db.aggregates import exact_sum
from server.ids import new_id
from server.money import MONEY
from server.treasury.ledger.models import Account, CauseType, LedgerEntry, SweepDue
from server.wallet.models import WalletAccount

ZERO = Decimal(0)


@dataclass(frozen=True)
class Holder:
    """An account at a place: (account, address). The address is "" for the world outside."""

    account: Account
    address: str = ""


@dataclass(frozen=True)
class Scope:
    """Whose money, in which asset, on which network."""

    merchant_id: str
    livemode: bool
    asset_id: str
    network: str


class Unbalanced(ValueError):
    """A posting whose legs do not sum to zero: a programming error, never written."""


async def post(session: AsyncSession, scope: Scope, cause_type: str, cause_id: str,
               legs: dict[Holder, Decimal]) -> str | None:
    """One posting; zero legs are left out. Returns its id, or None when nothing moves."""
    legs = {h: Decimal(a) for h, a in legs.items() if a != 0}
    if not legs:
        return None
    with localcontext(MONEY):  # 60 digits, whatever the calling thread's context
        total = sum(legs.values(), ZERO)
    if total != 0:
        raise Unbalanced(f"{cause_type} {cause_id}: legs sum to {total}")
    posting, now = new_id("lp"), now_of(session)
    credited: set[str] = set()
    for holder, amount in legs.items():
        session.add(LedgerEntry(
            id=new_id("le"), posting_id=posting, merchant_id=scope.merchant_id, livemode=scope.livemode,
            asset_id=scope.asset_id, account=holder.account, network=scope.network, address=holder.address,
            amount=amount, cause_type=cause_type, cause_id=cause_id, created_at=now))
        if amount > 0 and holder.account in SWEPT and holder.address:
            credited.add(holder.address)
    for address in sorted(credited):
        due(session, scope, address)
    await session.flush()
    return posting


# What a sweep moves from a deposit address: a credit to one of these there makes the place due for a look.
SWEPT = (Account.AVAILABLE, Account.FEES)


def due(session: AsyncSession, scope: Scope, address: str) -> None:
    """The sweep job should look at `address` for `scope`'s asset (in the caller's transaction)."""
    session.add(SweepDue(id=new_id("sd"), merchant_id=scope.merchant_id, livemode=scope.livemode,
                         network=scope.network, address=address, asset_id=scope.asset_id,
                         created_at=now_of(session)))


async def sum_at(session: AsyncSession, scope: Scope, address: str, account: Account) -> Decimal:
    """The merchant's `account` of `scope.asset_id` at `address`: one SQL SUM."""
    found = (await session.exec(select(exact_sum(LedgerEntry.amount)).where(
        LedgerEntry.network == scope.network, LedgerEntry.address == address, LedgerEntry.asset_id == scope.asset_id,
        LedgerEntry.account == account, LedgerEntry.merchant_id == scope.merchant_id,
        LedgerEntry.livemode == scope.livemode))).one()
    return found if found is not None else ZERO


async def pay_out_of(session: AsyncSession, scope: Scope, cause_type: str, cause_id: str, payer: str,
                     amount: Decimal, to: dict[Holder, Decimal]) -> str | None:
    """`amount` of the native coin leaves `payer` for `to` (gas, a top-up, a micro-deposit: coin the merchant's
    address spends on paygate's own transactions). The rule: never below zero. What the merchant's available funds
    at `payer` cover comes out of them; the rest out of `payer`'s `gas` holder (coin the ledger never saw arrive).
    Posted after the fact, with a receipt: whether `gas` could pay was decided before signing (`gas.reserve`).
    Read and posted with the merchant's wallet account locked, as payouts check the available balance."""
    await session.get(WalletAccount, (scope.merchant_id, scope.livemode), with_for_update=True)
    with localcontext(MONEY):
        covered = min(amount, max(await sum_at(session, scope, payer, Account.AVAILABLE), ZERO))
        legs = {Holder(Account.AVAILABLE, payer): -covered, Holder(Account.GAS, payer): covered - amount}
        for holder, value in to.items():
            legs[holder] = legs.get(holder, ZERO) + value
    return await post(session, scope, cause_type, cause_id, legs)


async def network_fee(session: AsyncSession, scope: Scope, cause_type: str, cause_id: str, payer: str,
                      fee: Decimal) -> str | None:
    """The gas a transaction of `payer` paid (in the network's native coin, `scope.asset_id`): gone to the world
    outside, out of `payer`'s available funds as far as they go (`pay_out_of`). Posted with the receipt."""
    return await pay_out_of(session, scope, cause_type, cause_id, payer, fee, {Holder(Account.OUTFLOW): fee})


async def funded(session: AsyncSession, scope: Scope, cause_id: str, address: str, amount: Decimal) -> str | None:
    """Funds the merchant sent to its own `address` by hand, recorded (`CauseType.FUNDING`): they pay back what its
    `gas` holder lacks first, the rest is available. Posted once per cause (None when it already was)."""
    # Locked before the look: two recordings of one funding at once queue here, and the second finds it posted.
    await session.get(WalletAccount, (scope.merchant_id, scope.livemode), with_for_update=True)
    if await held(session, CauseType.FUNDING, cause_id):
        return None
    with localcontext(MONEY):
        repaid = min(amount, max(-await sum_at(session, scope, address, Account.GAS), ZERO))
        legs = {Holder(Account.INFLOW): -amount, Holder(Account.GAS, address): repaid,
                Holder(Account.AVAILABLE, address): amount - repaid}
    return await post(session, scope, CauseType.FUNDING, cause_id, legs)


async def held(session: AsyncSession, cause_type: str, cause_id: str) -> dict[Holder, Decimal]:
    """Where the ledger says a cause's money is: the sum of its legs per holder (one SQL SUM … GROUP BY)."""
    total = exact_sum(LedgerEntry.amount)
    rows = await session.exec(select(col(LedgerEntry.account), col(LedgerEntry.address), total)
                              .where(LedgerEntry.cause_type == cause_type, LedgerEntry.cause_id == cause_id)
                              .group_by(col(LedgerEntry.account), col(LedgerEntry.address)))
    return {Holder(Account(account), address): amount for account, address, amount in rows}


async def settle_cause(session: AsyncSession, scope: Scope, cause_type: str, cause_id: str,
                       desired: dict[Holder, Decimal], source: Holder) -> str | None:
    """Moves the cause's money to `desired` (holder → amount; holders absent hold nothing of it), taking from or
    giving back to `source` (where the cause's money comes from: the world outside for a transfer, the treasury's
    available funds for a refund). Call it with the cause's row locked."""
    current = await held(session, cause_type, cause_id)
    legs: dict[Holder, Decimal] = {}
    with localcontext(MONEY):
        for holder in set(current) | set(desired):
            if holder != source:
                legs[holder] = desired.get(holder, ZERO) - current.get(holder, ZERO)
        legs[source] = -sum(legs.values(), ZERO)
    return await post(session, scope, cause_type, cause_id, legs)


# Accounts a merchant's balance shows (inflow and outflow are the world outside).
SHOWN = (Account.PENDING, Account.AVAILABLE, Account.LOCKED, Account.FROZEN)


async def balances(session: AsyncSession, merchant_id: str, livemode: bool) -> dict[str, dict[Account, Decimal]]:
    """asset id → account → sum of its legs: one SQL SUM … GROUP BY, exact on both databases (`exact_sum`)."""
    total = exact_sum(LedgerEntry.amount)
    rows = await session.exec(select(col(LedgerEntry.asset_id), col(LedgerEntry.account), total)
                              .where(LedgerEntry.merchant_id == merchant_id, LedgerEntry.livemode == livemode)
                              .group_by(col(LedgerEntry.asset_id), col(LedgerEntry.account))
                              .order_by(col(LedgerEntry.asset_id)))
    return _per_asset(rows)


async def available(session: AsyncSession, merchant_id: str, livemode: bool, asset_id: str, *,
                    lock: bool = False) -> Decimal:
    """The merchant's available balance in `asset_id`, at every address: what a payout or a refund may take. With
    `lock`, read with the merchant's wallet account locked, in the transaction that then takes from it: two payouts
    or refunds at once queue there, so neither can spend what the other has just taken."""
    if lock:
        await session.get(WalletAccount, (merchant_id, livemode), with_for_update=True, populate_existing=True)
    found = (await session.exec(select(exact_sum(LedgerEntry.amount)).where(
        LedgerEntry.merchant_id == merchant_id, LedgerEntry.livemode == livemode, LedgerEntry.asset_id == asset_id,
        LedgerEntry.account == Account.AVAILABLE))).one()
    return found if found is not None else ZERO


async def held_at(session: AsyncSession, network: str, address: str) -> dict[str, dict[Account, Decimal]]:
    """asset id → account → what the ledger says sits at `address` (sweeps, reconciliation): SUM … GROUP BY."""
    total = exact_sum(LedgerEntry.amount)
    rows = await session.exec(select(col(LedgerEntry.asset_id), col(LedgerEntry.account), total)
                              .where(LedgerEntry.network == network, LedgerEntry.address == address)
                              .group_by(col(LedgerEntry.asset_id), col(LedgerEntry.account)))
    return _per_asset(rows)


def _per_asset(rows: Iterable[tuple[str, str, Decimal]]) -> dict[str, dict[Account, Decimal]]:
    sums: dict[str, dict[Account, Decimal]] = {}
    for asset_id, account, amount in rows:
        sums.setdefault(asset_id, {})[Account(account)] = amount
    return sums
