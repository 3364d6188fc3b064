"""The ledger's listeners: each runs inside its cause's transaction, so a movement and its posting are committed
together or not at all.

* Incoming transfers (the chain watcher's `transfers changed` hook; never one paygate signed itself): seen or
  confirming → pending at the deposit address; confirmed and approved by AML → available, less the processing fee →
  fees; rejected → frozen; reverted → back out (the world outside).
* Chain refunds (the events outbox, on every `refund.*` event): Pending or Processing → locked at the treasury (out of
  its available funds); Success → outflow; Failed → back to available. Card refunds never touch a chain address and
  are not in this ledger.
"""

from __future__ import annotations

from decimal import Decimal

from sqlmodel.ext.asyncio.session import AsyncSession

from server.aml import AmlStatus
from server.chains.models import UNCONFIRMED, ChainTransfer, TransferStatus, WatchedAddress
from server.events.models import Event
from server.payment_intents import totals
from server.rails.registry import Rails
from server.refunds.models import Refund
from server.refunds.states import Status as RefundStatus
from server.runtime import Runtime
from server.treasury import keys, ledger
from server.treasury.ledger import Holder, Scope
from server.treasury.models import Account, CauseType
from server.wallet import addresses

OUTSIDE = Holder(Account.INFLOW)


def transfer_position(t: ChainTransfer, fee_percent: Decimal) -> dict[Holder, Decimal]:
    """Where an incoming transfer's money is, from its status and AML result."""
    amount = totals.units(t)
    at = t.to_address
    if t.status == TransferStatus.REVERTED:
        return {}
    if t.status in UNCONFIRMED or t.aml_status not in (AmlStatus.APPROVED, AmlStatus.REJECTED):
        return {Holder(Account.PENDING, at): amount}
    if t.aml_status == AmlStatus.REJECTED:
        return {Holder(Account.FROZEN, at): amount}
    fee = totals.fee(amount, fee_percent, t.decimals)
    return {Holder(Account.AVAILABLE, at): amount - fee, Holder(Account.FEES, at): fee}


async def ours(session: AsyncSession, rails: Rails, transfer: ChainTransfer) -> bool:
    """A transfer paygate itself signed (a sweep's gas top-up from the treasury to a deposit address): a move inside
    the merchant's own money, posted by its sender, never a payment."""
    return await rails.signed_here(session, transfer.network, [transfer.tx_hash])


async def on_transfer_changed(rt: Runtime, session: AsyncSession, transfer: ChainTransfer, previous_status: str,
                              previous_aml: str) -> None:
    if await ours(session, rt.rails, transfer):
        return
    watched = await session.get(WatchedAddress, (transfer.network, transfer.to_address))
    if watched is None:
        return  # not a merchant's deposit address
    scope = Scope(watched.merchant_id, watched.livemode, transfer.asset_id, transfer.network)
    await ledger.settle_cause(session, scope, CauseType.TRANSFER, transfer.id,
                              transfer_position(transfer, rt.settings.tx_fee_percent), OUTSIDE)


async def treasury_of(rt: Runtime, session: AsyncSession, network: str, merchant_id: str, livemode: bool) -> str:
    """The merchant's treasury address on `network` (its stored form), "" when it has none yet."""
    scheme = keys.scheme(rt, network)
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


async def on_event(rt: Runtime, session: AsyncSession, event: Event) -> None:
    if not event.type.startswith("refund."):
        return
    refund = await session.get(Refund, event.object_id)
    if refund is None or not refund.network:
        return  # a card refund: paid by the provider, not from a chain address
    treasury = await treasury_of(rt, session, refund.network, refund.merchant_id, refund.livemode)
    scope = Scope(refund.merchant_id, refund.livemode, refund.asset_id, refund.network)
    await ledger.settle_cause(session, scope, CauseType.REFUND, refund.id, refund_position(refund, treasury),
                              Holder(Account.AVAILABLE, treasury))
