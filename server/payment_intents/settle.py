"""Bringing an intent up to date with its transfers, moving the state machine, and recording the events.

Runs inside the caller's transaction (the chain watcher's, the cancel call's or the expiry job's), so a status
change and its event are committed together or not at all.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from server import state_machine
from server.chains.models import TransferStatus
from server.clock import now_of
from server.customers import totals as customer_totals
from server.db.engine import hooks_of
from server.events import outbox
from server.payment_intents import convert, methods, totals
from server.payment_intents.aggregate import Loaded, load_one
from server.payment_intents.env import Env
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import EVENT_TYPES, Event, Status, allowed, transition
from server.products import stock
from server.rates.quotes import round_down

FAILED_EVENT = "payment_intent.payment_failed"
# Hooks run, in the transaction of the move, with (session, intent) when a payment under way stopped unpaid (the
# intent left Processing for RequiresPaymentMethod: AML rejected its funds, a re-organisation dropped them, its
# card was declined), so that what waited on that payment goes on now rather than at its next look.
PAYMENT_STOPPED = "payment_intents.payment_stopped"


async def lock(session: AsyncSession, intent_id: str) -> PaymentIntent | None:
    """The intent, locked until the end of the transaction (PostgreSQL; SQLite has a single writer already)."""
    return await session.get(PaymentIntent, intent_id, with_for_update=True, populate_existing=True)


def snapshot(env: Env, loaded: Loaded) -> dict[str, Any]:
    return outbox.snapshot(convert.to_proto(env, loaded))


async def record(session: AsyncSession, env: Env, loaded: Loaded, type_: str,
                 before: dict[str, Any] | None) -> None:
    """The event with the intent as the API shows it now; `before` (None for a new intent) gives the changes."""
    await outbox.record(session, merchant_id=loaded.intent.merchant_id, livemode=loaded.intent.livemode, type=type_,
                        resource=convert.to_proto(env, loaded), before=before)


async def move(session: AsyncSession, env: Env, loaded: Loaded, event: Event, **facts: Any) -> None:
    """Apply one transition (and the facts that go with it) and record the event of the status entered."""
    before = snapshot(env, loaded)
    intent = loaded.intent
    was = intent.status
    state_machine.enter(intent, transition(intent.status, event), facts, now_of(session))
    session.add(intent)
    if intent.status == Status.SUCCESS and was != Status.SUCCESS:
        # The payment succeeded: the customer's totals move in this same transaction.
        await customer_totals.paid(session, env.catalogue, intent.customer_id, intent.currency, intent.amount)
        await stock.consume(session, intent)  # and what it bought leaves the stock (server/products/stock.py)
    if type_ := EVENT_TYPES.get(Status(intent.status)):
        await record(session, env, loaded, type_, before)
    if was == Status.PROCESSING and intent.status == Status.REQUIRES_PAYMENT_METHOD:
        for hook in hooks_of(session).of(PAYMENT_STOPPED):
            await hook(session, intent)


def processing_fee(env: Env, captured: Decimal, decimals: int) -> Decimal:
    """The intent's processing fee (`payment_details.tx_fee`) for what it captured, rounded once per intent.

    The only place the fee is decided for an intent: `_recompute` records it on the intent it settles, and the
    ledger's POST stage books that recorded figure for the transfers that pay the intent
    (server/treasury/ledger/listeners.py `processing_fee`), never applying a rule of its own to them."""
    return totals.fee(captured, env.settings.tx_fee_percent, decimals)


def _decimals(env: Env, asset_id: str) -> int:
    asset = env.catalogue.by_id.get(asset_id)
    return asset.decimals if asset else 18


def _first_paid_asset(loaded: Loaded) -> str:
    """The asset of the first funds that arrived (a captured charge its provider decided, such as a card's, or a
    live transfer that counts on its attempt): the intent is paid in it from then on. By arrival, not by the
    attempts' order, which changes each time the payer chooses an asset again."""
    arrivals: list[tuple[int, str]] = []
    for charge in loaded.charges:
        if not methods.of(charge.payment_method_type).counts_transfers:
            if charge.amount_captured:
                arrivals.append((charge.created, charge.asset_id))
            continue
        arrivals += [(t.created_at, charge.asset_id) for t in loaded.transfers_of(charge)
                     if t.status != TransferStatus.REVERTED]
    return min(arrivals, default=(0, ""), key=lambda a: a[0])[1]


def _recompute(env: Env, loaded: Loaded) -> tuple[list[str], Event | None, bool]:
    """Charges' and the intent's totals from the transfers. Returns (charges that just failed, the outcome event,
    whether any transfer may still count: unsettled or approved).

    The intent is paid in one asset, fixed by the first funds; only transfers that count (`Loaded.transfers_of`:
    in the charge's own asset, that asset the paid one, while the quote held) are added up, and each at the rate
    quoted to the payer. Anything else is the intent's unexpected funds (`Loaded.unexpected_funds`)."""
    intent = loaded.intent
    # Fixed before counting: with no paid asset yet every attempt's own funds count (totals.counts_toward).
    intent.paid_asset_id = intent.paid_asset_id or _first_paid_asset(loaded)
    failed_now: list[str] = []
    captured: dict[str, Decimal] = defaultdict(Decimal)
    frozen: dict[str, Decimal] = defaultdict(Decimal)
    paid = Decimal(0)
    pending = live = 0
    last_rate = Decimal(0)
    for charge in loaded.charges:
        if not methods.of(charge.payment_method_type).counts_transfers:
            # Its outcome comes from its provider (a card charge: server/cards), not from transfers: kept as it is.
            captured[charge.asset_id] += charge.amount_captured
            paid += charge.amount_captured * charge.exchange_rate
            continue
        t = totals.charge_totals(loaded.transfers_of(charge))
        status = totals.charge_status(t)
        if status == totals.ChargeStatus.FAILED and charge.status != status:
            failed_now.append(charge.id)
        charge.status, charge.amount_captured, charge.frozen_amount = status, t.approved, t.rejected
        captured[charge.asset_id] += t.approved
        frozen[charge.asset_id] += t.rejected
        paid += t.approved * charge.exchange_rate  # in the intent's currency, at the quote the payer was given
        pending += t.pending
        live += t.live
        if t.approved and charge.asset_id == intent.paid_asset_id:
            last_rate = charge.exchange_rate
    decimals = _decimals(env, intent.paid_asset_id)
    intent.amount_captured = captured.get(intent.paid_asset_id, Decimal(0))
    intent.frozen_amount = frozen.get(intent.paid_asset_id, Decimal(0))
    intent.tx_fee = processing_fee(env, intent.amount_captured, decimals)
    # network_fee is the gas part of native-coin refunds, already inside amount_refunded: not subtracted twice.
    intent.net_amount = intent.amount_captured - intent.tx_fee - intent.tax_fee - intent.amount_refunded
    intent.amount_overpaid = round_down((paid - intent.amount) / last_rate, decimals) \
        if paid > intent.amount and last_rate else Decimal(0)
    # Cancel needs no confirmed funds, so whatever was captured on a canceled intent arrived late.
    intent.amount_received_late = intent.amount_captured if intent.status == Status.CANCELED else Decimal(0)

    any_captured = any(v > 0 for v in captured.values())
    outcome: Event | None = None
    if any_captured and (intent.complete_on_first_payment or paid >= intent.amount):
        outcome = Event.PAID_IN_FULL
    elif any_captured:
        outcome = Event.PAID_PARTIALLY if not pending else None
    elif pending:
        outcome = None
    elif any(v > 0 for v in frozen.values()):
        outcome = Event.PAYMENT_FAILED
    elif not live:
        outcome = Event.TRANSACTIONS_REVERTED
    return failed_now, outcome, pending > 0 or any_captured


async def settle(session: AsyncSession, env: Env, intent_id: str) -> Loaded | None:
    """Recompute the intent from its transfers and move it as far as the facts allow."""
    intent = await lock(session, intent_id)
    if intent is None:
        return None
    loaded = await load_one(session, intent)
    before = snapshot(env, loaded)
    failed_now, outcome, counting = _recompute(env, loaded)
    for charge in loaded.charges:
        session.add(charge)
    intent.updated = now_of(session)
    session.add(intent)
    if counting and intent.status == Status.REQUIRES_PAYMENT_METHOD:
        await move(session, env, loaded, Event.TRANSACTION_SEEN)
    if outcome is not None and allowed(intent.status, outcome):
        await move(session, env, loaded, outcome)
    if failed_now:
        await record(session, env, loaded, FAILED_EVENT, before)
    return loaded


async def refunded(session: AsyncSession, env: Env, intent_id: str, amount: Decimal,
                   network_fee: Decimal = Decimal(0)) -> None:
    """A refund reached the customer: count it; once everything captured went back the intent is Refunded.
    `network_fee`: the gas paid out of `amount` (a native-coin refund), as the receipt shows it."""
    intent = await lock(session, intent_id)
    if intent is None:
        return
    intent.amount_refunded += amount
    intent.network_fee += network_fee
    intent.net_amount -= amount
    intent.updated = now_of(session)
    session.add(intent)
    if intent.amount_refunded >= intent.amount_captured and allowed(intent.status, Event.REFUNDED_IN_FULL):
        await move(session, env, await load_one(session, intent), Event.REFUNDED_IN_FULL)
