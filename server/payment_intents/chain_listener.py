"""The payments side of the chain seam: on every ChainTransfer change, settle the intent it pays.

Registered with `server.chains.hooks.listen` by `register(runtime)` (server/payment_intents/wiring.py), bound to
that runtime. Runs inside the watcher's transaction: the charge, the intent, its status and its events change
together with the transfer, or not at all.
"""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.chains.models import ChainTransfer
from server.payment_intents import settle
from server.payment_intents.env import Env
from server.payment_intents.models import Charge, ChargeTransfer, PaymentIntent
from server.payment_intents.states import OPEN_FOR_PAYMENT, Status
from server.treasury import listeners as treasury_listeners


async def _attribute(session: AsyncSession, transfer: ChainTransfer) -> Charge | None:
    """The charge whose address this transfer reached, decided once. A charge's own address names it; a permanent
    deposit address goes to the oldest of its charges whose intent is still open, else its newest (late funds stay
    visible). In any asset: a transfer in another asset than the charge's is linked too, so the intent shows it as
    unexpected funds, but it never counts toward the charge (totals.counts_toward)."""
    link = await session.get(ChargeTransfer, transfer.id)
    if link is not None:
        return await session.get(Charge, link.charge_id)
    charge = await session.get(Charge, transfer.owner_id)
    if charge is None:
        candidates = list(await session.exec(
            select(Charge, PaymentIntent.status)
            .join(PaymentIntent, col(PaymentIntent.id) == col(Charge.payment_intent_id))
            .where(Charge.permanent_deposit_id == transfer.owner_id)
            .order_by(col(Charge.sort_key))))
        if not candidates:
            return None  # not a payment address (the watcher serves other owners too)
        open_ = [c for c, status in candidates if status in OPEN_FOR_PAYMENT or status == Status.PROCESSING]
        charge = open_[0] if open_ else candidates[-1][0]
    session.add(ChargeTransfer(transfer_id=transfer.id, charge_id=charge.id))
    await session.flush()
    return charge


async def on_transfer_changed(env: Env, session: AsyncSession, transfer: ChainTransfer, previous_status: str,
                              previous_aml: str) -> None:
    if await treasury_listeners.ours(session, env.rails, transfer):
        return  # a sweep's gas top-up to the deposit address (DESIGN §15): the merchant's own move, not a payment
    charge = await _attribute(session, transfer)
    if charge is not None:
        await settle.settle(session, env, charge.payment_intent_id)
