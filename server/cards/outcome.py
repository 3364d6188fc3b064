"""How paygate learns a card payment's outcome when the payer's side finished it: the provider's signed webhook, and
the read-through (reading an intent whose card charge is pending asks the provider), so a lost webhook never loses
a payment (DESIGN §9).

Both only point at a charge; what happened is always read back from the provider (`retrieve_payment`), never
taken from the webhook's body, so a replayed, reordered or stale-but-signed event cannot move a charge backwards.
`payments.apply` decides each charge once. A webhook is matched to its charge by the provider's payment id; one about
a payment no charge records (its row was never committed: a crash after the provider's answer) goes to
`recovery.adopt`, which rebuilds the charge from the payment's metadata if it is one of ours.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import sqlalchemy as sa
from sqlmodel import col, select

from server.cards import accounts, calls, payments, recovery
from server.cards.accounts import Cards
from server.db import Database
from server.errors import NotFound, Unavailable, invalid
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.models import Charge, PaymentIntent
from server.payment_intents.states import Status
from server.payment_intents.totals import ChargeStatus
from server.rails.card import UNSUBMITTED, BadSignature, PaymentEvent, ProviderUnavailable

log = logging.getLogger("paygate.cards")


async def refresh(db: Database, env: Env, cards: Cards, intent_id: str) -> bool:
    """Asks the provider about the intent's pending card charges, each at most once per `read_through_seconds` (claimed
    in the database, so any number of readers and processes ask once). True when a charge was asked about."""
    now = db.clock.now()
    due = now - cards.read_through_seconds
    async with db.read() as session:
        pending = list(await session.exec(select(Charge).where(
            Charge.payment_intent_id == intent_id, Charge.payment_method_type == payments.CARDS,
            Charge.status == ChargeStatus.PENDING, col(Charge.provider_payment_id) != "",
            col(Charge.provider_checked_at) <= due)))
    asked = False
    for charge in pending:
        async with db.transaction() as session:
            claimed = await session.exec(sa.update(Charge).where(
                col(Charge.id) == charge.id, col(Charge.provider_checked_at) <= due).values(provider_checked_at=now))
            if getattr(claimed, "rowcount", 0) != 1:
                continue
            acct = await accounts.account_at(session, cards, charge.payment_provider, charge.merchant_id,
                                             charge.livemode)
        if acct is None:
            continue
        try:
            payment = await acct.client.retrieve_payment(charge.provider_payment_id)
            if charge.provider_status == payments.UNCONFIRMED and payment.status in UNSUBMITTED:
                # Our confirmation never arrived: canceled there first, so it cannot be charged after we fail it.
                payment = await acct.client.cancel_payment(charge.provider_payment_id)
        except ProviderUnavailable:
            log.warning("card read-through failed", extra={"charge": charge.id})
            continue
        await recovery.report(db, env, cards, charge.id, payment)
        asked = True
    return asked


async def cancel_pending(db: Database, env: Env, cards: Cards, intent_id: str) -> None:
    """The intent was canceled (or expired): its pending card charges are canceled at their provider, best effort,
    so the payer can no longer finish them (3-D Secure on the page). A payment that succeeded meanwhile is applied
    instead (recorded as received late on the canceled intent, like late crypto funds)."""
    async with db.read() as session:
        pending = list(await session.exec(select(Charge).where(
            Charge.payment_intent_id == intent_id, Charge.payment_method_type == payments.CARDS,
            Charge.status == ChargeStatus.PENDING, col(Charge.provider_payment_id) != "")))
        opened = {c.payment_provider: await accounts.account_at(session, cards, c.payment_provider, c.merchant_id,
                                                                 c.livemode) for c in pending}
    for charge in pending:
        acct = opened[charge.payment_provider]
        if acct is None:
            continue
        try:
            payment = await acct.client.cancel_payment(charge.provider_payment_id)
        except ProviderUnavailable:
            try:
                payment = await acct.client.retrieve_payment(charge.provider_payment_id)
            except ProviderUnavailable:
                log.warning("card cancel failed", extra={"charge": charge.id})
                continue
        await recovery.report(db, env, cards, charge.id, payment)


async def cancel_abandoned(db: Database, env: Env, cards: Cards, limit: int = 50) -> int:
    """Pending card payments of intents that are already Canceled (expired by the scheduler, or canceled while
    the provider did not answer), or already paid another way (crypto that arrived while a 3-D Secure page was
    open), are canceled at the provider, so 3-D Secure can no longer finish them. Asked again on every run until it
    answers: the charge stays Pending until then. The number of intents asked about."""
    async with db.read() as session:
        intent_ids = list(await session.exec(
            select(Charge.payment_intent_id).distinct()
            .join(PaymentIntent, col(PaymentIntent.id) == col(Charge.payment_intent_id))
            .where(Charge.payment_method_type == payments.CARDS, Charge.status == ChargeStatus.PENDING,
                   col(Charge.provider_payment_id) != "",
                   # A card charge that paid the intent is no longer Pending: a Pending one beside a paid asset is
                   # another attempt (the intent accepts no new one once paid).
                   sa.or_(col(PaymentIntent.status) == Status.CANCELED, col(PaymentIntent.paid_asset_id) != ""))
            .limit(limit)))
    for intent_id in intent_ids:
        await cancel_pending(db, env, cards, intent_id)
    return len(intent_ids)


async def ask_unconfirmed(db: Database, env: Env, cards: Cards, limit: int = 50) -> int:
    """Intents with a card confirmation that went unanswered (`payments.UNCONFIRMED`) are asked about here too, so
    one that nobody reads is still settled: by what the provider did, or canceled there if it never received the
    confirmation. Each charge at most once per `read_through_seconds`, as for readers. The number asked about."""
    async with db.read() as session:
        unconfirmed = list(await session.exec(
            select(Charge).where(Charge.provider_status == payments.UNCONFIRMED, Charge.status == ChargeStatus.PENDING)
            .limit(limit)))
    asked = 0
    now = db.clock.now()
    for intent_id in dict.fromkeys(c.payment_intent_id for c in unconfirmed if c.provider_payment_id):
        asked += await refresh(db, env, cards, intent_id)
    for charge in unconfirmed:
        if not charge.provider_payment_id and charge.provider_checked_at <= now:
            # An off-session payment whose process died before the provider's answer: asked again under its key.
            asked += await calls.resume(db, env, cards, charge)
    return asked


def card_pending(loaded: Loaded) -> bool:
    return any(payments.is_card(c) and c.status == ChargeStatus.PENDING and c.provider_payment_id
               for c in loaded.charges)


async def webhook(db: Database, env: Env, cards: Cards, provider: str, merchant_id: str, payload: bytes,
                  headers: Mapping[str, str]) -> None:
    """`POST /webhooks/{provider}/{merchant_id}`: verified with the merchant's webhook secret at that provider
    (either mode's), else `400` and nothing changes. A verified event about a payment of this merchant makes paygate
    read that payment back from the provider and apply it; anything else is acknowledged and ignored (localstripe,
    like a shared Stripe account, sends every event to every endpoint)."""
    rail = cards.rails.get(provider)
    if rail is None:
        raise NotFound("card_provider", provider)
    header = rail.signature_header
    signature = next((v.strip() for k, v in headers.items() if k.lower() == header.lower()), "")
    if not signature:
        raise invalid(header, f"missing; {provider} signs every webhook")
    event: PaymentEvent | None = None
    account = None
    async with db.read() as session:
        for livemode in (False, True):
            acct = await accounts.account_at(session, cards, provider, merchant_id, livemode)
            if acct is None or not acct.webhook_secret:
                continue
            try:
                event = rail.payment_event(payload, signature, acct.webhook_secret)
            except BadSignature:
                continue
            account = acct
            break
    if account is None:
        raise invalid(header, f"does not verify with this merchant's {provider} webhook secret, "
                              "or its timestamp is too old")
    if event is None:
        return  # signed, but not about a payment paygate made: acknowledged and ignored
    async with db.read() as session:
        charge = await recovery.recorded(session, provider, event.payment_id)
    if charge is not None and (charge.merchant_id != merchant_id or charge.livemode != account.livemode):
        return  # another merchant's card charge (a provider account shared in tests sends every event everywhere)
    try:
        payment = await account.client.retrieve_payment(event.payment_id)
    except ProviderUnavailable:
        raise Unavailable(f"{provider} did not answer; send the webhook again") from None
    if charge is not None:
        await recovery.report(db, env, cards, charge.id, payment)
    else:
        # No charge records it: its row was never committed (a crash after the provider's answer), or it is no
        # payment of ours. Rebuilt from the provider's metadata if it is ours, else logged (server/cards/recovery.py).
        await recovery.adopt(db, env, cards, account, payment)
