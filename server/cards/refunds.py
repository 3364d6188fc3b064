"""Card refunds (DESIGN §9): `POST /v1/refunds` on a card-paid intent pays back through the charge's card
provider, in its currency, with the rules and events of crypto refunds (DESIGN §6): partial or full, several, the
sum of non-failed refunds never above what was captured, decided one at a time under the intent's lock.

`create` commits the Pending row and `refund.created` (with the amount check under the intent's lock) and answers
that Pending refund, as the spec's `POST /v1/refunds` says; the provider is asked after the answer, by a background
task started right after the commit (`Runtime.tasks`, server/background.py): one provider call with idempotency key =
our refund id, then Processing → Success (`refund.updated` each, `refund.succeeded`) or Failed (`refund.failed`, the
amount refundable again) in one transaction with the intent's and customer's totals. A provider that answers the
refund `pending` (not settled with the card's bank yet) leaves it Processing, its amount held, until a retry reads it
back `succeeded` or `failed`. That first try does not look
for an earlier refund at the provider: there was none.

The background task is only the quick path; the database is the durable one. Only a definite answer fails a refund:
when the provider does not answer, it may still have paid, so the refund stays Pending (its amount held). Any Pending
card refund whose last try (or creation) is `RETRY_AFTER_SECONDS` old is sent again by the scheduler
(`retry_pending`), whether its try went unanswered or never happened (the process died after the commit, or stopped
with the task in flight): it first looks for a refund the provider made with our refund id in its metadata and adopts
it, and only then asks for one, with the same idempotency key. Every try moves `updated`, so a refund the provider
keeps not answering goes to the back of the queue and never holds up the others.

A refund the provider leaves unanswered for long is never given up (it may have been paid), but it is tried less
often (a tenth of its age between tries, 30 s to 10 min) and, once it is `ALERT_AFTER_SECONDS` old, every unanswered
try is logged as an error for the operator: the merchant's customer is waiting for money nobody is moving.
"""

from __future__ import annotations

import logging
from decimal import Decimal

import sqlalchemy as sa
from paygate.v1 import refunds_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, validate
from server.background import Tasks
from server.cards import accounts, payments
from server.cards.accounts import Cards
from server.context import Caller
from server.customers import totals as customer_totals
from server.db import Database
from server.errors import MissingParameter, invalid
from server.ids import new_id
from server.payment_intents import methods, settle
from server.payment_intents import service as intents
from server.payment_intents.env import Env
from server.payment_intents.methods import RefundRoute
from server.payment_intents.models import Charge, PaymentIntent
from server.payment_intents.totals import ChargeStatus, text
from server.rails.card import Declined, ProviderRefundStatus, ProviderUnavailable, to_minor
from server.refunds import convert as refund_convert
from server.refunds import service as refunds
from server.refunds.errors import InvalidPaymentIntent, RefundAmountExceeded
from server.refunds.models import Refund
from server.refunds.states import HOLDING, Event, Status

log = logging.getLogger("paygate.cards")
BATCH = 50
# A Pending card refund is sent again this long after its last unanswered try, or after its creation when it was
# never tried (the first try is the background task started by `create`). Should that try still be in flight (the
# provider client's timeout and retries can outlast this), the same idempotency key makes the two asks one refund,
# and only the first answer recorded moves the row.
RETRY_AFTER_SECONDS = 30
# A card refund the provider has not settled yet: Pending (never answered) or Processing (answered `pending`).
_ASKED = frozenset({Status.PENDING, Status.PROCESSING})
# The longest wait between two tries of a refund the provider keeps not answering.
RETRY_AT_MOST_SECONDS = 600
# A refund unanswered this long after its creation is the operator's to look at.
ALERT_AFTER_SECONDS = 3600


async def card_charges_to_refund(db: Database, caller: Caller, request: pb.CreateRefundRequest
                                 ) -> tuple[PaymentIntent, list[Charge]] | None:
    """The intent and the successful card charges a refund would pay back; None for a refund on chain.

    Without `asset_id` a refund pays back the intent's payment: by card when a card charge in the paid asset paid
    it. With `asset_id` it pays back money that is not the payment: by card when that is a card charge's currency
    (a card payment that succeeded after the intent was paid another way), else on chain (unexpected funds)."""
    async with db.read() as session:
        intent = await intents.find(session, caller, request.payment_intent_id.strip())
        if intent is None:
            return None
        full = await intents.get(session, caller, intent.id)
    asset = request.asset_id.strip().upper() if request.HasField("asset_id") else ""
    wanted = asset or intent.paid_asset_id.upper()
    found = [c for c in full.charges if methods.of(c.payment_method_type).refund_route == RefundRoute.PROVIDER
             and c.status == ChargeStatus.SUCCESS and c.asset_id.upper() == wanted]
    return (intent, found) if found and wanted else None


async def _held_on(session: AsyncSession, charge_id: str) -> Decimal:
    """What the charge's Pending, Processing and Successful refunds add up to."""
    rows = await session.exec(select(col(Refund.amount)).where(Refund.charge_id == charge_id,
                                                          col(Refund.status).in_(list(HOLDING))))
    return sum((Decimal(a) for a in rows), Decimal(0))


async def _most_refundable(session: AsyncSession, charges: list[Charge]) -> tuple[Charge, Decimal]:
    """The charge with the most left to refund (the oldest of equals), and that amount: one refund is paid back
    through one provider payment, never more than it captured."""
    best: tuple[Charge, Decimal] | None = None
    for charge in charges:
        left = charge.amount_captured - await _held_on(session, charge.id)
        if best is None or left > best[1]:
            best = (charge, left)
    assert best is not None
    return best


async def create(db: Database, env: Env, cards: Cards, tasks: Tasks, caller: Caller, request: pb.CreateRefundRequest,
                 found: tuple[PaymentIntent, list[Charge]]) -> Refund:
    """The Pending refund, committed with `refund.created`; its provider call is started in `tasks` after the commit.
    The checks in the order of crypto refunds (DESIGN §12): the intent, the amount against what is left on the
    charge with the most left."""
    intent, charges = found
    if not request.amount:
        raise MissingParameter("amount")
    amount = validate.amount("amount", request.amount, allow_zero=False)
    if request.reason not in refund_convert.REASON_NAMES and request.reason != pb.REFUND_REASON_UNSPECIFIED:
        raise invalid("reason", "use one of " + ", ".join(refund_convert.REASONS))
    if not refunds.refundable(intent):
        raise InvalidPaymentIntent()
    asset = env.catalogue.currency(charges[0].asset_id)
    decimals = asset.decimals if asset else 2
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > decimals:
        raise invalid("amount", f"at most {decimals} decimal places in {charges[0].asset_id}")
    if request.HasField("refund_address") and request.refund_address.strip():
        raise invalid("refund_address", "a card payment is refunded to its card; leave refund_address out")
    async with db.read() as session:
        _, remaining = await _most_refundable(session, charges)
    if amount > remaining:
        raise RefundAmountExceeded(text(max(remaining, Decimal(0))), charges[0].asset_id)
    async with db.transaction() as session:
        locked = await settle.lock(session, intent.id)
        if locked is None or not refunds.refundable(locked):
            raise InvalidPaymentIntent()  # refunded in full (or changed) since the read above
        charge, remaining = await _most_refundable(session, charges)
        if amount > remaining:
            raise RefundAmountExceeded(text(max(remaining, Decimal(0))), charge.asset_id)
        now = db.clock.now()
        refund = Refund(
            id=new_id("rf"), merchant_id=caller.merchant_id, livemode=caller.livemode, payment_intent_id=intent.id,
            charge_id=charge.id, asset_id=charge.asset_id, network="", decimals=decimals, amount=amount,
            refund_address="", reason=refund_convert.REASON_NAMES.get(request.reason, ""),
            description=validate.text("description", request.description, max_length=1000),
            metadata_=json_fields.metadata_of(request.metadata), exchange_rate=charge.exchange_rate,
            status=Status.PENDING, created=now, updated=now)
        session.add(refund)
        await session.flush()
        await refunds.record(session, env, refund, "refund.created", None)
    # Committed: from here the refund is the scheduler's to finish if this try never happens.
    tasks.spawn(send(db, env, cards, refund.id), name=f"card refund {refund.id}")
    return refund


def due_again(now: int) -> sa.ColumnElement[bool]:
    """A Pending refund's next try is due: `RETRY_AFTER_SECONDS` after its last, or a tenth of its age then (the
    time from its creation to its last try), whichever is longer, but never more than `RETRY_AT_MOST_SECONDS`."""
    waited = now - col(Refund.updated)
    return sa.and_(waited >= RETRY_AFTER_SECONDS,
                   sa.or_(waited >= RETRY_AT_MOST_SECONDS, 10 * waited >= col(Refund.updated) - col(Refund.created)))


async def retry_pending(db: Database, env: Env, cards: Cards, *, now: int, limit: int = BATCH) -> int:
    """Card refunds still Pending (unanswered) or Processing (answered `pending`) whose next try is due
    (`due_again`) are sent again, or read back; the number tried."""
    async with db.read() as session:
        due = list(await session.exec(
            select(Refund.id).join(Charge, col(Charge.id) == col(Refund.charge_id))
            .where(col(Refund.status).in_(list(_ASKED)), Charge.payment_method_type == payments.CARDS,
                   due_again(now))
            .order_by(col(Refund.updated)).limit(limit)))
    for refund_id in due:
        try:
            await send(db, env, cards, refund_id, retry=True)
        except Exception as e:  # one refund's trouble (a key that no longer opens, …) never holds up the others
            log.error("card refund not sent again", extra={"refund": refund_id, "error": type(e).__name__})
            await _tried(db, refund_id)
    return len(due)


async def _tried(db: Database, refund_id: str) -> None:
    """A try without an answer: the next one is `RETRY_AFTER_SECONDS` from now, behind the refunds waiting longer."""
    async with db.transaction() as session:
        await session.exec(sa.update(Refund).where(col(Refund.id) == refund_id, col(Refund.status).in_(list(_ASKED)))
                           .values(updated=db.clock.now()))


async def send(db: Database, env: Env, cards: Cards, refund_id: str, *, retry: bool = False) -> Refund:
    """Asks the charge's provider to pay a Pending card refund back and records the answer. Safe to repeat: the
    provider's idempotency key is the refund id, and a refund that ended is left alone.

    Only the provider's `SUCCEEDED` makes the refund Success (and the intent's refunded amount); `FAILED` or
    `CANCELED` make it Failed; `PENDING` (the card's bank has not settled it; also what the provider's adapter makes
    of a status it cannot read) makes it Processing, its amount still held, and the retries read it back (`retry`)
    until it ends one way or the other."""
    async with db.read() as session:
        refund = await session.get(Refund, refund_id)
        assert refund is not None
        charge = await session.get(Charge, refund.charge_id)
        acct = await accounts.account_at(session, cards, charge.payment_provider, refund.merchant_id,
                                         refund.livemode) if charge is not None else None
    if refund.status not in _ASKED or charge is None:
        return refund
    failure = ""
    provider_id = ""
    settled = False
    if acct is None:
        failure = "provider_not_configured"
    else:
        try:
            done = await acct.client.find_refund(payment_id=charge.provider_payment_id,
                                                 metadata_key="paygate_refund_id", value=refund.id) \
                if retry else None  # an earlier try went unanswered: it may have refunded
            done = done or await acct.client.refund(
                payment_id=charge.provider_payment_id, amount=to_minor(refund.amount, refund.decimals),
                metadata={"paygate_refund_id": refund.id, "paygate_payment_intent_id": refund.payment_intent_id},
                idempotency_key=refund.id)
            provider_id, settled = done.id, done.status == ProviderRefundStatus.SUCCEEDED
            if done.status in (ProviderRefundStatus.FAILED, ProviderRefundStatus.CANCELED):
                failure = "provider_refused"
        except Declined:
            failure = "provider_refused"
        except ProviderUnavailable:
            age = db.clock.now() - refund.created
            facts = {"refund": refund.id, "merchant": refund.merchant_id, "provider": charge.payment_provider,
                     "age_seconds": age}
            if age >= ALERT_AFTER_SECONDS:
                log.error("card refund unanswered for over an hour; still asking", extra=facts)
            else:
                log.warning("card refund not answered; asked again later", extra=facts)
            await _tried(db, refund_id)
            return refund
    async with db.transaction() as session:
        locked = await session.get(Refund, refund_id, with_for_update=True, populate_existing=True)
        assert locked is not None
        if locked.status not in _ASKED:
            return locked
        if failure:
            await refunds.move(session, env, locked, Event.FAILED, failure_reason=failure)
            return locked
        if locked.status == Status.PENDING:
            await refunds.move(session, env, locked, Event.SUBMITTED, provider_refund_id=provider_id)
        if not settled:
            # Not yet settled at the provider: asked again after `RETRY_AFTER_SECONDS`, like an unanswered try.
            locked.updated = db.clock.now()
            session.add(locked)
            return locked
        await refunds.move(session, env, locked, Event.CONFIRMED)
        intent = await session.get(PaymentIntent, locked.payment_intent_id)
        if intent is not None and intent.paid_asset_id == locked.asset_id:
            await customer_totals.refunded(session, env.catalogue, intent.customer_id, intent.currency,
                                           locked.amount * locked.exchange_rate)
            await settle.refunded(session, env, locked.payment_intent_id, locked.amount)
        # Else a card payment that came after the intent was paid in another asset: captured on its charge alone
        # (never in payment_details, nor the customer's totals), so its refund is booked there alone.
        return locked

