"""The payments side of the chain seam: on every ChainTransfer change, settle the intent it pays.

Registered with `server.chains.hooks.listen` by `register(runtime)` (server/payment_intents/wiring.py), bound to
that runtime. Runs inside the watcher's transaction: the charge, the intent, its status and its events change
together with the transfer, or not at all.
"""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.aml import AmlStatus
from server.chains.models import ChainTransfer, TransferStatus
from server.payment_intents import methods, settle, totals
from server.payment_intents.aggregate import Loaded, load
from server.payment_intents.env import Env
from server.payment_intents.models import Charge, ChargeTransfer, PaymentIntent
from server.payment_intents.states import OPEN_FOR_PAYMENT, Status

# Intents a permanent deposit may still pay: those open for payment, and those whose payment is confirming.
RECEIVING = OPEN_FOR_PAYMENT | {Status.PROCESSING}


def _may_still_count(t: ChainTransfer) -> bool:
    """Paid, or on its way and not yet refused: reverted and AML-rejected funds never count."""
    return t.status != TransferStatus.REVERTED and t.aml_status != AmlStatus.REJECTED


def _covered(loaded: Loaded) -> bool:
    """Whether the intent's captured and in-flight funds, each at the rate its charge quoted, reach the amount due.
    In-flight funds count as covering what they cover, so a second payer is not sent to an intent that is already
    paid but still confirming; if they are later reverted or rejected the intent needs funds again."""
    intent = loaded.intent
    value = Decimal(0)
    for charge in loaded.charges:
        if not methods.of(charge.payment_method_type).counts_transfers:  # a card's: what its provider captured
            value += charge.amount_captured * charge.exchange_rate
            continue
        units = sum((totals.units(t) for t in loaded.transfers_of(charge) if _may_still_count(t)), Decimal(0))
        value += units * charge.exchange_rate
    return value > 0 if intent.complete_on_first_payment else value >= intent.amount


def _counts_on_latest(loaded: Loaded, latest: Charge, transfer: ChainTransfer) -> bool:
    """Whether `transfer` would pay the intent through `latest`, its current quote on the shared address: in that
    quote's asset, while it held (totals.counts_toward)."""
    intent = loaded.intent
    return totals.counts_toward(latest, transfer, intent.paid_asset_id, intent.currency)


async def _permanent_deposit_charge(session: AsyncSession, deposit_id: str, transfer: ChainTransfer) -> Charge | None:
    """The latest charge of the oldest receiving intent that still needs funds and that `transfer` would pay, else
    of the oldest that still needs funds (the transfer pays none: it shows there as unexpected funds), else the
    newest charge (late funds stay visible), else None when `deposit_id` is no permanent deposit.

    The transfer's own quote first: a customer who opened a new checkout after an older one's quote lapsed pays the
    new quote, and giving that payment to the older intent (where it cannot count) would leave both unpaid."""
    rows = list(await session.exec(
        select(Charge, PaymentIntent)
        .join(PaymentIntent, col(PaymentIntent.id) == col(Charge.payment_intent_id))
        .where(Charge.permanent_deposit_id == deposit_id)
        .order_by(col(PaymentIntent.sort_key), col(Charge.sort_key))))
    if not rows:
        return None
    latest = {intent.id: charge for charge, intent in rows}  # per intent, its current quote on this address
    intents = list({intent.id: intent for _, intent in rows if intent.status in RECEIVING}.values())
    needing = [loaded for loaded in await load(session, intents) if not _covered(loaded)]
    paid = next((loaded for loaded in needing if _counts_on_latest(loaded, latest[loaded.intent.id], transfer)),
                needing[0] if needing else None)
    if paid is not None:
        return latest[paid.intent.id]
    return max((charge for charge, _ in rows), key=lambda c: c.sort_key)


async def _attribute(session: AsyncSession, transfer: ChainTransfer) -> Charge | None:
    """The charge whose address this transfer reached, decided once (a later re-org or AML rejection does not move
    it). A charge's own address names it; a permanent deposit address is shared by its customer's intents
    (`_permanent_deposit_charge`, which prefers an intent the transfer can pay). In any asset: a transfer in another
    asset than the charge's is linked too, so the intent shows it as unexpected funds, but it never counts toward the
    charge (totals.counts_toward)."""
    link = await session.get(ChargeTransfer, transfer.id)
    if link is not None:
        return await session.get(Charge, link.charge_id)
    charge = await session.get(Charge, transfer.owner_id)
    if charge is None:
        charge = await _permanent_deposit_charge(session, transfer.owner_id, transfer)
        if charge is None:
            return None  # not a payment address (the watcher serves other owners too)
    session.add(ChargeTransfer(transfer_id=transfer.id, charge_id=charge.id))
    await session.flush()
    return charge


async def on_transfer_changed(env: Env, session: AsyncSession, transfer: ChainTransfer, previous_status: str,
                              previous_aml: str) -> None:
    if await env.rails.ours(session, transfer):
        return  # a sweep's gas top-up to the deposit address (DESIGN §15): the merchant's own move, not a payment
    charge = await _attribute(session, transfer)
    if charge is not None:
        await settle.settle(session, env, charge.payment_intent_id)
