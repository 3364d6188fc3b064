"""Who pays what a treasury transaction costs in the network's native coin (DESIGN §15): its gas, and the coin it
sends when that coin is the cost itself (a sweep's gas top-up, a payout address's micro-deposit).

The rule. Paygate's processing fees held at an address (`fees`) are paygate's: they never pay a merchant's gas. What
a transaction of one of the merchant's addresses costs is covered at that address, by
1. the merchant's available native coin there, then
2. the address's `gas` coin: what the chain holds there beyond what the ledger accounts to every other account there
   (`unrecorded`: coin sent by hand and not recorded yet, less what `gas` already spent of it, plus a gas top-up's
   leftover credited to `gas`), minus native sweeps on their way in (mined, not yet posted).
Only at the paying address: the ledger is kept per address, and a deposit address's available coin is not at the
treasury; spending it there would spend coin physically owned by paygate's fees until a sweep (which may never come
below the sweep minimum) moved it in.

How. Before signing, in the transaction that signs, `reserve` sets the most the transaction can cost aside at the
paying address (available, then gas → locked; cause `network_fee`, the transaction's id), with the merchant's wallet
account locked as payouts and refunds take it: a transaction whose cost is not covered is not signed, and its sender
waits for the next pass. `unrecorded` needs the chain, read before that transaction (`look`); if the ledger moved at
the address meanwhile the chain reading is stale and the gas part waits too. With the receipt, `settle` gives the
reservation back and posts what was paid, out of available first (`postings.pay_out_of`); a transaction that can never
be mined (its nonce lost) is `release`d whole. A top-up's coin stays whose it was at the deposit address
(`settle_top_up`): gas coin sent there is never the merchant's available coin.

A receipt costing more than its reservation (a fee-bumped replacement, a refund signed again with a fresh nonce) or a
transaction signed without one (a native-coin refund pays its fee out of its amount, so only the gas of its cancel or
revert is paid apart) is still posted, after the fact, under `postings.pay_out_of`'s rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.catalogue.catalogue import Asset
from server.db.aggregates import exact_sum
from server.money import MONEY
from server.treasury.env import TreasuryEnv
from server.treasury.ledger import postings
from server.treasury.ledger.models import Account, CauseType, LedgerEntry
from server.treasury.ledger.postings import Holder, Scope
from server.treasury.models import OutgoingStatus
from server.treasury.sweeps.models import SweepTransaction, SweepTxKind
from server.wallet.models import WalletAccount

ZERO = Decimal(0)
RESERVED = CauseType.NETWORK_FEE  # a reservation's cause: (network_fee, the transaction's id)


@dataclass(frozen=True)
class Look:
    """The chain's native coin at `address`, read after counting the ledger's legs there (`entries`)."""

    address: str
    entries: int
    chain: Decimal


async def _entries(session: AsyncSession, scope: Scope, address: str) -> int:
    found = (await session.exec(select(sa.func.count()).select_from(LedgerEntry).where(
        LedgerEntry.network == scope.network, LedgerEntry.address == address,
        LedgerEntry.asset_id == scope.asset_id))).one()
    return int(found)


async def look(rt: TreasuryEnv, scope: Scope, native: Asset, address: str) -> Look | None:
    """Network I/O, outside any transaction: the ledger's count of legs at `address`, then the chain's balance.
    None when the network has no balances to read (no gas coin is then spent)."""
    balances = rt.rails.balances(scope.network)
    if balances is None:
        return None
    async with rt.db.read() as session:
        entries = await _entries(session, scope, address)
    held = await balances.balance(native, address)
    return Look(address, entries, Decimal(held).scaleb(-native.decimals))


async def _non_gas(session: AsyncSession, scope: Scope, address: str) -> Decimal:
    """What the ledger accounts the native coin at `address` to, but `gas`: each other account's sum there, a
    negative one as nothing (available taken below zero there by a payout of coin still at a deposit address is no
    coin at this address that gas could spend)."""
    rows = await session.exec(select(col(LedgerEntry.account), exact_sum(LedgerEntry.amount)).where(
        LedgerEntry.network == scope.network, LedgerEntry.address == address, LedgerEntry.asset_id == scope.asset_id,
        LedgerEntry.account != Account.GAS).group_by(col(LedgerEntry.account)))
    return sum((max(amount, ZERO) for _, amount in rows), ZERO)


async def _arriving(session: AsyncSession, scope: Scope, address: str) -> Decimal:
    """Native sweeps to `address` signed and not yet posted: on chain as soon as mined, in the ledger only once
    confirmed. Never hand-funded coin."""
    rows = await session.exec(select(col(SweepTransaction.amount_base)).where(
        SweepTransaction.network == scope.network, SweepTransaction.destination_address == address,
        SweepTransaction.asset_id == scope.asset_id, SweepTransaction.kind == SweepTxKind.SWEEP,
        SweepTransaction.status == OutgoingStatus.PENDING))
    return sum((Decimal(a) for a in rows), ZERO)


async def unrecorded(session: AsyncSession, scope: Scope, address: str, seen: Look | None, decimals: int) -> Decimal:
    """The coin at `address` that `gas` may spend (see the module's rule); 0 when the chain reading is missing or
    stale (a leg was posted there since `seen` counted them)."""
    if seen is None or seen.address != address or await _entries(session, scope, address) != seen.entries:
        return ZERO
    with localcontext(MONEY):
        arriving = (await _arriving(session, scope, address)).scaleb(-decimals)
        return max(seen.chain - await _non_gas(session, scope, address) - arriving, ZERO)


@dataclass(frozen=True)
class Cost:
    """The most a transaction of `payer` can cost in the native coin (`scope.asset_id`), and the chain's reading to
    judge its gas coin by."""

    scope: Scope
    payer: str
    most: Decimal
    decimals: int
    seen: Look | None


async def cost_of(rt: TreasuryEnv, scope: Scope, native: Asset, payer: str, most: Decimal) -> Cost:
    """Network I/O, outside any transaction (`look`)."""
    return Cost(scope, payer, most, native.decimals, await look(rt, scope, native, payer))


async def spendable(session: AsyncSession, cost: Cost) -> Decimal:
    """What may pay `cost` at its paying address (the rule `reserve` applies): the merchant's available native coin
    there, then its gas coin. Never the coin the ledger holds there for anything else (frozen, pending, fees)."""
    with localcontext(MONEY):
        available = max(await postings.sum_at(session, cost.scope, cost.payer, Account.AVAILABLE), ZERO)
        return available + await unrecorded(session, cost.scope, cost.payer, cost.seen, cost.decimals)


async def reserve(session: AsyncSession, cost: Cost, tx_id: str) -> bool:
    """Sets `cost.most` aside for the transaction `tx_id`: out of the merchant's available coin at the paying
    address, then its gas coin, into locked. False, posting nothing, when they do not cover it. In the signing
    transaction, before signing."""
    scope, payer = cost.scope, cost.payer
    await session.get(WalletAccount, (scope.merchant_id, scope.livemode), with_for_update=True,
                      populate_existing=True)
    with localcontext(MONEY):
        available = max(await postings.sum_at(session, scope, payer, Account.AVAILABLE), ZERO)
        from_available = min(cost.most, available)
        from_gas = cost.most - from_available
        if from_gas > 0 and from_gas > await unrecorded(session, scope, payer, cost.seen, cost.decimals):
            return False
    await postings.post(session, scope, RESERVED, tx_id, {
        Holder(Account.AVAILABLE, payer): -from_available, Holder(Account.GAS, payer): -from_gas,
        Holder(Account.LOCKED, payer): cost.most})
    return True


async def release(session: AsyncSession, scope: Scope, tx_id: str) -> None:
    """Gives what was set aside for `tx_id` back to whoever it came from (nothing when nothing is set aside: never
    reserved, or released already). With the merchant's wallet account locked, as every move of its balances."""
    await session.get(WalletAccount, (scope.merchant_id, scope.livemode), with_for_update=True)
    held = await postings.held(session, RESERVED, tx_id)
    if not any(v for h, v in held.items() if h.account == Account.LOCKED):
        return
    await postings.post(session, scope, RESERVED, tx_id, {
        h: -v for h, v in held.items() if h.account in (Account.LOCKED, Account.AVAILABLE, Account.GAS)})


async def carry(session: AsyncSession, scope: Scope, old_tx: str, new_tx: str) -> None:
    """What was set aside for `old_tx` is set aside for `new_tx` instead: the same payment signed again with a fresh
    nonce after `old_tx` lost its own (nothing of it was paid). With the merchant's wallet account locked."""
    await session.get(WalletAccount, (scope.merchant_id, scope.livemode), with_for_update=True)
    held = {h: v for h, v in (await postings.held(session, RESERVED, old_tx)).items()
            if h.account in (Account.LOCKED, Account.AVAILABLE, Account.GAS)}
    if not any(v for h, v in held.items() if h.account == Account.LOCKED):
        return
    await postings.post(session, scope, RESERVED, old_tx, {h: -v for h, v in held.items()})
    await postings.post(session, scope, RESERVED, new_tx, held)


async def settle(session: AsyncSession, scope: Scope, tx_id: str, payer: str, paid: Decimal,
                 to: dict[Holder, Decimal]) -> None:
    """With `tx_id`'s receipt: its reservation given back, then `paid` leaves `payer` for `to` (`pay_out_of`)."""
    await release(session, scope, tx_id)
    await postings.pay_out_of(session, scope, RESERVED, tx_id, payer, paid, to)


async def settle_top_up(session: AsyncSession, scope: Scope, tx_id: str, treasury: str, deposit: str,
                        sent: Decimal, fee: Decimal) -> None:
    """A sweep's gas top-up mined: `sent` reached `deposit`, `fee` went to the network. Paid like any cost (available
    first, then gas; the fee first); what reached the deposit address stays its payer's there: the part the merchant's
    available coin paid is available there, the part gas coin paid is gas there, so the leftover of the token
    transfer's gas goes back to whoever paid the top-up."""
    await release(session, scope, tx_id)  # the wallet account locked there
    with localcontext(MONEY):
        cost = sent + fee
        from_available = min(cost, max(await postings.sum_at(session, scope, treasury, Account.AVAILABLE), ZERO))
        sent_available = max(from_available - fee, ZERO)
        legs = {Holder(Account.AVAILABLE, treasury): -from_available,
                Holder(Account.GAS, treasury): from_available - cost,
                Holder(Account.AVAILABLE, deposit): sent_available,
                Holder(Account.GAS, deposit): sent - sent_available,
                Holder(Account.OUTFLOW): fee}
    await postings.post(session, scope, RESERVED, tx_id, legs)
