"""The ledger's listeners: each runs inside its cause's transaction, so a movement and its posting are committed
together or not at all.

* Incoming transfers (the chain watcher's `transfers changed` hook; never one paygate signed itself): seen or
  confirming → pending at the deposit address; confirmed and approved by AML → available, less the processing fee →
  fees (the intent's, as `settle` decided it, not a fee per transfer: `processing_fee`); rejected → frozen;
  reverted → back out (the world outside).
* Chain refunds (the events outbox, on every `refund.*` event): Pending or Processing → locked at the treasury (out of
  its available funds); Success → outflow; Failed → back to available. Card refunds never touch a chain address and
  are not in this ledger.
"""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.aml import AmlStatus
from server.chains.models import UNCONFIRMED, ChainTransfer, TransferStatus, WatchedAddress
from server.db.aggregates import exact_sum
from server.events.models import Event
from server.payment_intents import methods, totals
from server.payment_intents.aggregate import load_one
from server.payment_intents.models import Charge, ChargeTransfer, PaymentIntent
from server.refunds.models import Refund
from server.refunds.states import Status as RefundStatus
from server.treasury import signing_keys
from server.treasury.env import TreasuryEnv
from server.treasury.ledger import postings
from server.treasury.ledger.models import Account, CauseType, LedgerEntry
from server.treasury.ledger.postings import Holder, Scope
from server.wallet import addresses

OUTSIDE = Holder(Account.INFLOW)


async def transfer_position(session: AsyncSession, t: ChainTransfer, fee_percent: Decimal) -> dict[Holder, Decimal]:
    """Where an incoming transfer's money is, from its status and AML result."""
    amount = totals.units(t)
    at = t.to_address
    if t.status == TransferStatus.REVERTED:
        return {}
    if t.status in UNCONFIRMED or t.aml_status not in (AmlStatus.APPROVED, AmlStatus.REJECTED):
        return {Holder(Account.PENDING, at): amount}
    if t.aml_status == AmlStatus.REJECTED:
        return {Holder(Account.FROZEN, at): amount}
    fee = await processing_fee(session, t, amount, fee_percent)
    return {Holder(Account.AVAILABLE, at): amount - fee, Holder(Account.FEES, at): fee}


async def processing_fee(session: AsyncSession, t: ChainTransfer, amount: Decimal, fee_percent: Decimal) -> Decimal:
    """The processing fee of an approved transfer, booked once, when it becomes available (kept at every later call).

    A transfer that pays its intent: the intent's fee as `settle` decided it (the `tx_fee` it recorded on the intent,
    in this transaction at the transfer's ATTRIBUTE stage) less what its other paying transfers already booked, so
    that however the intent was paid (in one transfer or in many small ones) the ledger's fees for it are its `tx_fee`
    to the last unit and the merchant's available money is its `net_amount`; the ledger applies no fee rule of its
    own to an intent's money. Never more than the transfer itself: paying transfers approved before the ledger
    existed are booked later (backfill.py), when the intent's fee already counts all of them. Funds that pay nothing
    (the intent's unexpected funds, a transfer linked to no charge), for which no intent decided a fee: `totals.fee`
    of the transfer alone. Two transfers of one intent are booked one after the other: `settle` locked the intent's
    row in this transaction."""
    held = await postings.held(session, CauseType.TRANSFER, t.id)
    posted = {h.account: v for h, v in held.items() if h.address == t.to_address}
    if posted.get(Account.AVAILABLE) or posted.get(Account.FEES):
        return posted.get(Account.FEES, Decimal(0))  # available already: its fee was booked then
    paying = await _paying_with(session, t)
    if paying is None:
        return totals.fee(amount, fee_percent, t.decimals)
    intent, others = paying
    return min(intent.tx_fee - await _fees_booked(session, others), amount)


async def _paying_with(session: AsyncSession, t: ChainTransfer) -> tuple[PaymentIntent, list[str]] | None:
    """The intent `t` pays, as `settle` left it, and the other transfers that pay it (as `settle` counts them:
    `Loaded.transfers_of`) in `t`'s asset (`tx_fee` is of the paid asset only; units of two assets are never added);
    None when `t` pays none. The intent was settled just before, in this transaction: payment_intents' transfer
    listener runs at the ATTRIBUTE stage, before this one's POST (server/chains/hooks.py), and links the transfer to
    its charge."""
    link = await session.get(ChargeTransfer, t.id)
    charge = await session.get(Charge, link.charge_id) if link is not None else None
    intent = await session.get(PaymentIntent, charge.payment_intent_id) if charge is not None else None
    if intent is None:
        return None
    loaded = await load_one(session, intent)
    paying = [x.id for c in loaded.charges if methods.of(c.payment_method_type).counts_transfers
              for x in loaded.transfers_of(c) if x.asset_id == t.asset_id]
    return (intent, [i for i in paying if i != t.id]) if t.id in paying else None


async def _fees_booked(session: AsyncSession, transfer_ids: list[str]) -> Decimal:
    """The fees the ledger booked for these transfers (their own legs: one SQL SUM)."""
    if not transfer_ids:
        return Decimal(0)
    rows = await session.exec(select(exact_sum(LedgerEntry.amount)).where(
        LedgerEntry.cause_type == CauseType.TRANSFER, col(LedgerEntry.cause_id).in_(transfer_ids),
        LedgerEntry.account == Account.FEES))
    return rows.one() or Decimal(0)


async def on_transfer_changed(rt: TreasuryEnv, session: AsyncSession, transfer: ChainTransfer, previous_status: str,
                              previous_aml: str) -> None:
    if await rt.rails.ours(session, transfer):
        return
    watched = await session.get(WatchedAddress, (transfer.network, transfer.to_address))
    if watched is None:
        return  # not a merchant's deposit address
    scope = Scope(watched.merchant_id, watched.livemode, transfer.asset_id, transfer.network)
    await postings.settle_cause(session, scope, CauseType.TRANSFER, transfer.id,
                              await transfer_position(session, transfer, rt.settings.tx_fee_percent), OUTSIDE)


async def treasury_of(rt: TreasuryEnv, session: AsyncSession, network: str, merchant_id: str, livemode: bool) -> str:
    """The merchant's treasury address on `network` (its stored form), "" when it has none yet."""
    scheme = signing_keys.scheme(rt, network)
    if scheme is None:
        return ""  # a network no longer configured
    found = await addresses.treasury_address(session, rt.keys, scheme, merchant_id, livemode, allocate=False)
    return found or ""


def refund_position(refund: Refund, treasury: str) -> dict[Holder, Decimal]:
    if refund.status in (RefundStatus.PENDING, RefundStatus.PROCESSING):
        return {Holder(Account.LOCKED, treasury): refund.amount}
    if refund.status == RefundStatus.SUCCESS:
        return {Holder(Account.OUTFLOW): refund.amount}
    return {}


async def on_event(rt: TreasuryEnv, session: AsyncSession, event: Event) -> None:
    if not event.type.startswith("refund."):
        return
    refund = await session.get(Refund, event.object_id)
    if refund is None or not refund.network:
        return  # a card refund: paid by the provider, not from a chain address
    treasury = await treasury_of(rt, session, refund.network, refund.merchant_id, refund.livemode)
    scope = Scope(refund.merchant_id, refund.livemode, refund.asset_id, refund.network)
    await postings.settle_cause(session, scope, CauseType.REFUND, refund.id, refund_position(refund, treasury),
                              Holder(Account.AVAILABLE, treasury))
