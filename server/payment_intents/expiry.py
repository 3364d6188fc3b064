"""The expiry job: intents past `expired_at` with nothing paid become Canceled (`cancellation_reason` expired).

Claims its rows with `FOR UPDATE SKIP LOCKED` on PostgreSQL, so several scheduler processes share the work
without doing one intent twice; SQLite has one writer at a time. An intent with funds in flight (Processing) or
received (PartialPaid, Success) is left alone. The same job then asks the card provider about pending card payments
of canceled intents and about card confirmations that went unanswered (server/cards/outcome.py), outside the
transaction.
"""

from __future__ import annotations

import logging

from sqlmodel import col, select

from server.cards import outcome
from server.db import Database
from server.payment_intents import service
from server.payment_intents.env import Env
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import Status
from server.runtime import Runtime

log = logging.getLogger("paygate.payment_intents")
BATCH = 200
INTERVAL_SECONDS = 5


async def expire_due(db: Database, env: Env, now: int | None = None) -> int:
    """Expire one batch of due intents; the number expired."""
    now = db.clock.now() if now is None else now
    async with db.transaction() as session:
        stmt = (select(PaymentIntent)
                .where(PaymentIntent.status == Status.REQUIRES_PAYMENT_METHOD, col(PaymentIntent.expired_at) <= now)
                .order_by(col(PaymentIntent.expired_at)).limit(BATCH))
        if db.is_postgres:
            stmt = stmt.with_for_update(skip_locked=True)
        rows = list(await session.exec(stmt))
        for intent in rows:
            await service.expire(session, env, intent, now)
    return len(rows)


async def expire_payment_intents(rt: Runtime) -> None:
    count = await expire_due(rt.db, rt, rt.clock.now())
    if count:
        log.info("payment intents expired", extra={"count": count})
    # After the commit above, never inside it: a provider call must not hold the intents' rows. A crash in between
    # leaves a Pending card charge on a Canceled intent, which this finds on the next run.
    asked = await outcome.cancel_abandoned(rt.db, rt, rt.cards)
    if asked:
        log.info("pending card payments of canceled intents canceled at their provider", extra={"count": asked})
    settled = await outcome.ask_unconfirmed(rt.db, rt, rt.cards)
    if settled:
        log.info("unanswered card confirmations asked about at their provider", extra={"count": settled})
