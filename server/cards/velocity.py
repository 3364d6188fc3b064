"""Card testing (DESIGN §16): how many cards a shopper may try before card payment is refused.

A card attempt is a card charge. Before one is opened (`check`, first thing in `payments.open_card`):

* an intent takes at most 5 card attempts, whoever makes them (setting `card_attempts_per_intent`);
* a shopper's address (the client IP's bucket, `ratelimit.client_ip.bucket_of`) and a customer make at most 10 an
  hour each, in each mode (`card_attempts_per_ip_per_hour`, `card_attempts_per_customer_per_hour`);
* 3 declines in an hour for one address or one customer refuse card payment there for an hour from the third
  (`card_declines_per_hour`).

Refusals are `429 rate_limited` with the seconds to wait (Retry-After), nothing written, and a warning naming the
reason. Crypto is never refused by these rules.

The counts read the charges themselves: a charge keeps the address of the shopper whose call opened it
(`Charge.client_ip`, indexed with `created`), stamped when the charge is first flushed, and a customer's are found
through its intents. Only calls without a secret key are a shopper's: a merchant's server pays for all its shoppers
from one address, and paygate's own off-session charges (a subscription renewal) have none, so neither counts per
address or customer, and neither is refused by those counts (the per-intent cap still holds for the merchant).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar

from server.clock import now_of
from server.config import Settings
from server.context import client_ip, optional_caller
from server.db.sets import on_postgres
from server.errors import RateLimited
from server.payment_intents.aggregate import Loaded
from server.payment_intents.models import CARDS, Charge, PaymentIntent
from server.payment_intents.states import ChargeStatus
from server.ratelimit.client_ip import bucket_of

log = logging.getLogger("paygate.cards")

HOUR = 3600
_STAMP = "card_velocity.client_ip"
_IP_LENGTH = 100  # Charge.client_ip's column: a unix socket's peer can be longer than any address


def shopper_address() -> str:
    """The address bucket of the shopper making this call; '' for a secret-key caller or outside a call."""
    caller = optional_caller()
    if caller is not None and caller.key_kind == "secret":
        return ""
    address = client_ip.get()
    return bucket_of(address)[:_IP_LENGTH] if address else ""


async def check(session: AsyncSession, settings: Settings, loaded: Loaded) -> None:
    """Raises `RateLimited` when `loaded` may not take a card attempt now; otherwise the attempt this unit of work
    opens is stamped with the shopper's address."""
    from server.cards.payments import _standing  # the charge a token on this call confirms: no new attempt

    intent = loaded.intent
    now = now_of(session)
    ip = shopper_address()
    standing = _standing(loaded, now)
    tried = [c for c in loaded.charges if c.payment_method_type == CARDS and c is not standing]
    per_intent = settings.card_attempts_per_intent
    if len(tried) >= per_intent:
        _refuse(loaded, ip, "intent_attempts", max(1, intent.expired_at - now),
                f"this payment took {per_intent} card attempts, the most it takes; pay with crypto")
    if not ip:
        return
    await _one_attempt_at_a_time(session, [f"ip:{intent.livemode}:{ip}"]
                                 + ([f"customer:{intent.customer_id}"] if intent.customer_id else []))
    skip = standing.id if standing is not None else ""
    by_ip = select(Charge.created).where(Charge.client_ip == ip, Charge.livemode == intent.livemode)
    scopes = [("ip", by_ip, settings.card_attempts_per_ip_per_hour)]
    if intent.customer_id:
        scopes.append(("customer", select(Charge.created)
                       .join(PaymentIntent, col(PaymentIntent.id) == col(Charge.payment_intent_id))
                       .where(PaymentIntent.customer_id == intent.customer_id, Charge.client_ip != ""),
                       settings.card_attempts_per_customer_per_hour))
    declines = settings.card_declines_per_hour
    for scope, query, _ in scopes:
        wait = seconds_refused(await _times(session, _declines(query), now - 2 * HOUR, skip), now, declines)
        if wait:
            _refuse(loaded, ip, f"{scope}_declines", wait, f"{declines} card payments were declined "
                    f"for this {_noun(scope)} within an hour; card payment is refused for an hour, or pay with crypto")
    for scope, query, per_hour in scopes:
        recent = await _times(session, query, now - HOUR, skip, limit=per_hour)
        if len(recent) >= per_hour:
            _refuse(loaded, ip, f"{scope}_attempts", max(1, recent[-1] + HOUR - now),
                    f"{per_hour} card attempts for this {_noun(scope)} within an hour, the most allowed; "
                    "try again later, or pay with crypto")
    _stamp(session, ip)


async def _one_attempt_at_a_time(session: AsyncSession, keys: list[str]) -> None:
    """PostgreSQL: a shopper's attempts are counted and opened under transaction-scoped advisory locks on the address
    and the customer, so that attempts sent at once on many intents cannot all pass one count (SQLite's writers run
    one at a time already). Taken in one order, so that two attempts never wait on each other."""
    if not on_postgres(session):
        return
    for key in sorted({int.from_bytes(hashlib.sha256(f"card_velocity:{k}".encode()).digest()[:8], "big",
                                      signed=True) for k in keys}):
        await session.exec(select(sa.func.pg_advisory_xact_lock(key)))


def _noun(scope: str) -> str:
    return "address" if scope == "ip" else "customer"


def _declines(query: SelectOfScalar[int]) -> SelectOfScalar[int]:
    """Failed card charges the provider refused: not those withdrawn because the payer paid another way, nor those
    whose confirmation never reached the provider, nor those canceled there."""
    from server.cards.payments import CANCELED, LOST_CONFIRMATION, WITHDRAWN

    not_refusals = ("", WITHDRAWN[0], LOST_CONFIRMATION[0], CANCELED[0])
    return query.where(Charge.status == ChargeStatus.FAILED, col(Charge.failure_code).not_in(not_refusals))


async def _times(session: AsyncSession, query: SelectOfScalar[int], since: int, skip: str,
                 limit: int = 100) -> list[int]:
    """When the charges `query` selects were opened since `since`, newest first, at most `limit`."""
    query = query.where(Charge.created > since, Charge.id != skip)
    return list(await session.exec(query.order_by(col(Charge.created).desc()).limit(limit)))


def seconds_refused(newest_first: list[int], now: int, declines: int = Settings.card_declines_per_hour) -> int:
    """Seconds card payment stays refused: an hour from each decline that was the `declines`th within an hour."""
    times = sorted(newest_first)
    until = 0
    for i in range(declines - 1, len(times)):
        if times[i] - times[i - declines + 1] < HOUR:
            until = max(until, times[i] + HOUR)
    return max(0, until - now)


def _refuse(loaded: Loaded, ip: str, reason: str, wait: int, message: str) -> None:
    intent = loaded.intent
    log.warning("card attempt refused", extra={
        "reason": reason, "payment_intent": intent.id, "merchant": intent.merchant_id,
        "customer": intent.customer_id or "", "client_ip": ip, "retry_after": wait})
    raise RateLimited(wait, f"{message} (retry after {wait} s)")


def _stamp(session: AsyncSession, ip: str) -> None:
    """The card charges this unit of work opens get `ip`, when they are first flushed (`payments._new_charge`
    flushes each at once)."""
    sync = session.sync_session
    sync.info[_STAMP] = ip
    if not sa.event.contains(sync, "before_flush", _stamp_new):
        sa.event.listen(sync, "before_flush", _stamp_new)
        sa.event.listen(sync, "after_commit", _forget)
        sa.event.listen(sync, "after_rollback", _forget)


def _stamp_new(session: Session, *_: Any) -> None:
    ip = session.info.get(_STAMP, "")
    if not ip:
        return
    for row in session.new:
        if isinstance(row, Charge) and row.payment_method_type == CARDS and not row.client_ip:
            row.client_ip = ip


def _forget(session: Session) -> None:
    session.info.pop(_STAMP, None)
