"""Card payments the provider made and paygate never recorded (DESIGN §9): rebuilt from the provider's word.

A charge is committed before the call that charges its card (server/cards/calls.py), but an off-session payment
learns its provider payment id only from the answer, so a process that dies before the answer leaves a paid provider
PaymentIntent that no row names by that id (and payments made by releases before that rule left no row at all). It still
carries our ids in its metadata (`payments.metadata`: merchant, intent, charge, and an off-session caller's key),
and the provider's webhook about it reaches `outcome.webhook`, which finds no charge recording it and hands it here,
read back from the provider with the merchant's key (the webhook's body is never trusted). A merchant with no webhook
configured never gets one, so the scheduler also runs `sweep` every `SWEEP_SECONDS`: for every merchant's provider
account in either mode it lists the provider's payments of the last `WINDOW_SECONDS` (at most `MOST_PER_ACCOUNT`,
read with the merchant's key, each payment as whole as a read-back) and hands each money-moved payment naming that
merchant that no charge records to the same `adopt`.

`adopt` records such a payment only when it is one paygate could have made:

* money moved (`succeeded`, `processing`): an attempt nobody finished took nothing and needs no row;
* its metadata names the merchant whose webhook secret verified the event and whose key read the payment back, and
  an intent of that merchant in that key's mode;
* its amount and currency are that intent's, as every card charge paygate opens asks for the whole intent.

Then, under the intent's lock, the charge is rebuilt (our charge id from the metadata, or one made from the
provider's payment id if that one is taken) and the provider's word applied through `payments.apply`: the intent's
state machine, its totals and its events, as for any outcome. Under the same lock, a payment that a charge records
by now (the creating call committed after all) is applied to that charge instead; `apply` decides a charge once,
so a replayed webhook changes nothing.

Anything else is not credited, and the webhook is acknowledged all the same: the provider retrying it cannot make it
match. It is logged for the operator instead, which is how paygate raises money matters nobody is waiting on (card
refunds left unanswered, reconciliation drift): at ERROR when it names one of the merchant's intents with another
amount or currency (a payment was taken that matches none of ours: look, and refund it at the provider unless the
merchant knows it), at WARNING when it names another merchant's intent or none (forged, or not paygate's). The
scheduled pass finds such a payment again every `SWEEP_SECONDS` for as long as it is in the window: each process
reports one at its level once and at DEBUG after that (`_first_report`), so the log says it once, not 288 times a day.
The money sits in the merchant's own provider account either way; paygate never holds it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.cards import accounts, calls, payments, saved
from server.cards.accounts import Account, Cards
from server.clock import now_of
from server.db import Database
from server.payment_intents import settle
from server.payment_intents.aggregate import load_one
from server.payment_intents.env import Env
from server.payment_intents.models import Charge, PaymentIntent
from server.payment_intents.totals import ChargeStatus
from server.rails.card import Payment, ProviderPaymentStatus, ProviderUnavailable, from_minor

log = logging.getLogger("paygate.cards")
# Provider statuses in which the payer's money is taken or on its way.
MONEY_MOVED = frozenset({ProviderPaymentStatus.SUCCEEDED, ProviderPaymentStatus.PROCESSING})
# How our charge ids look (server/ids.py new_id, payments.keyed_charge_id): nothing else is taken from metadata.
CHARGE_ID = re.compile(r"ch_[A-Za-z0-9]{24}")
# The scheduled pass (`sweep`): how often, how far back, and how many of one account's payments it lists at most. A
# payment it missed (made while the scheduler was down for longer than the window, or behind more payments than
# that) waits for its webhook.
SWEEP_SECONDS = 300
WINDOW_SECONDS = 24 * 3600
MOST_PER_ACCOUNT = 1000
# Payments this process has reported as not credited (`_first_report`), oldest first; bounded, since a process may
# run for months.
_REPORTED: dict[str, None] = {}
REPORTED_MOST = 10_000


def _first_report(provider: str, payment_id: str) -> bool:
    """Whether this process reports the payment for the first time (and remembers that it did)."""
    key = f"{provider}:{payment_id}"
    if key in _REPORTED:
        return False
    if len(_REPORTED) >= REPORTED_MOST:
        del _REPORTED[next(iter(_REPORTED))]
    _REPORTED[key] = None
    return True


def _not_credited(level: int, msg: str, facts: dict[str, Any]) -> None:
    """A payment paygate does not credit, logged at `level` the first time this process sees it."""
    first = _first_report(facts["provider"], facts["provider_payment"])
    log.log(level if first else logging.DEBUG, msg, extra=facts)


async def recorded(session: AsyncSession, provider: str, payment_id: str) -> Charge | None:
    """The charge that records the provider's payment, if one does."""
    return (await session.exec(select(Charge).where(Charge.payment_provider == provider,
                                                    Charge.provider_payment_id == payment_id))).first()


async def report(db: Database, env: Env, cards: Cards, charge_id: str, payment: Payment) -> None:
    """Applies what the provider says about one charge, under the intent's lock (a card to save is read from the
    provider outside it: server/cards/calls.py)."""
    async def work(session: AsyncSession, replaying: Cards) -> None:
        charge = await session.get(Charge, charge_id)
        if charge is None:
            return
        intent = await settle.lock(session, charge.payment_intent_id)
        if intent is None:
            return
        loaded = await load_one(session, intent)
        current = next((c for c in loaded.charges if c.id == charge_id), None)
        if current is not None:
            await payments.apply(session, env, loaded, current, payment, cards=replaying)

    await calls.unit(db, cards, work)


async def adopt(db: Database, env: Env, cards: Cards, acct: Account, payment: Payment) -> bool:
    """Records `payment` (read back from `acct`'s provider, recorded by no charge when it was read) on the intent its
    metadata names, if it is one paygate could have made for `acct`'s merchant. True when it is recorded now."""
    if payment.status not in MONEY_MOVED:
        return False
    meta = payment.metadata
    facts: dict[str, Any] = {
        "merchant": acct.merchant_id, "provider": acct.provider, "provider_payment": payment.id,
        "status": payment.status, "amount_minor": payment.amount, "currency": payment.currency,
        "named_merchant": meta.get("paygate_merchant_id", ""),
        "named_intent": meta.get("paygate_payment_intent_id", ""), "named_charge": meta.get("paygate_charge_id", "")}
    if facts["named_merchant"] != acct.merchant_id:
        _not_credited(logging.WARNING, "card payment names another merchant; not credited", facts)
        return False
    async def work(session: AsyncSession, replaying: Cards) -> Charge | None:
        intent = await settle.lock(session, facts["named_intent"]) if facts["named_intent"] else None
        if intent is None or intent.merchant_id != acct.merchant_id or intent.livemode != acct.livemode:
            _not_credited(logging.WARNING, "card payment names no payment intent of this merchant; not credited", facts)
            return None
        loaded = await load_one(session, intent)
        known = await recorded(session, acct.provider, payment.id)
        if known is not None:  # its call committed after all, while this waited for the intent's lock
            current = next((c for c in loaded.charges if c.id == known.id), None)
            if current is not None:
                await payments.apply(session, env, loaded, current, payment, cards=replaying)
            return None
        if not _same_amount(env, intent, payment):
            _not_credited(logging.ERROR, "card payment does not match its payment intent's amount; not credited", {
                **facts, "intent_amount": str(intent.amount), "intent_currency": intent.currency})
            return None
        out = next((c for c in loaded.charges if c.id == facts["named_charge"] and payments.is_card(c)
                    and c.status == ChargeStatus.PENDING and not c.provider_payment_id), None)
        if out is not None:
            # Its charge was committed out at the provider and never learned the answer (its process died during
            # an off-session payment): the payment is that charge's.
            out.provider_payment_id, out.provider_client_secret = payment.id, payment.client_secret
            await payments.apply(session, env, loaded, out, payment, cards=replaying)
            return out
        charge = payments.card_charge(intent, acct, charge_id=await _free_id(session, intent, payment),
                                      now=now_of(session))
        charge.idempotency_key = _caller_key(charge, meta.get("paygate_idempotency_key", ""))
        charge.provider_payment_id, charge.provider_client_secret = payment.id, payment.client_secret
        await _card_of(session, acct, intent, charge, payment)
        if intent.paid_asset_id in ("", charge.asset_id):
            intent.payment_method_type = payments.CARDS  # what the lost call had chosen
        payments.add_charge(session, loaded, charge)
        await session.flush()
        await payments.apply(session, env, loaded, charge, payment, cards=replaying)
        return charge

    charge = await calls.unit(db, cards, work)
    if charge is None:
        return False
    log.info("card payment recorded from its provider's word", extra={**facts, "charge": charge.id})
    return True


def candidates(listed: Iterable[Payment], *, merchant_id: str, since: int) -> list[Payment]:
    """The payments of a provider's list worth handing to `adopt` for `merchant_id`'s account: made at or after
    `since` (whatever the provider filtered), money moved, and naming that merchant in their metadata; each once.
    Payments naming nobody (the merchant's sales made elsewhere) or another merchant (sharing the provider account,
    whose own pass finds them) are not paygate's to record here: passing over them quietly keeps the log readable."""
    seen: set[str] = set()
    kept = []
    for payment in listed:
        if payment.created >= since and payment.status in MONEY_MOVED and payment.id not in seen \
                and payment.metadata.get("paygate_merchant_id") == merchant_id:
            seen.add(payment.id)
            kept.append(payment)
    return kept


async def sweep(db: Database, env: Env, cards: Cards, *, now: int) -> int:
    """The scheduler's pass (every `SWEEP_SECONDS`): every merchant's provider account in turn, so an account whose
    provider does not answer is logged and passed over, never the others. The number of payments recorded now.

    Safe with any number of scheduler processes running it at once: `adopt` takes the intent's lock and asks again,
    under it, whether a charge records the payment, so a payment two passes both found is recorded by one of them."""
    async with db.read() as session:
        keys = await accounts.every_account(session, cards)
    adopted = 0
    for merchant_id, livemode, provider in keys:
        async with db.read() as session:
            acct = await accounts.account_at(session, cards, provider, merchant_id, livemode)
        if acct is None:  # its keys removed meanwhile
            continue
        try:
            adopted += await sweep_account(db, env, cards, acct, since=now - WINDOW_SECONDS)
        except ProviderUnavailable:
            log.warning("card provider did not list its recent payments; account passed over until the next pass",
                        extra={"merchant": merchant_id, "livemode": livemode, "provider": provider})
    if adopted:
        log.info("card payments no charge recorded were recorded from their provider's list",
                 extra={"count": adopted})
    return adopted


async def sweep_account(db: Database, env: Env, cards: Cards, acct: Account, *, since: int) -> int:
    """One account's part of `sweep`: its provider asked first, outside any transaction; each payment then adopted
    in a transaction of its own. The number recorded now."""
    listed = await acct.client.recent_payments(since=since, limit=MOST_PER_ACCOUNT)
    found = candidates(listed, merchant_id=acct.merchant_id, since=since)
    if not found:
        return 0
    async with db.read() as session:
        known = {payment_id: (charge_id, status) for payment_id, charge_id, status in await session.exec(
            select(Charge.provider_payment_id, Charge.id, Charge.status).where(
                Charge.payment_provider == acct.provider, col(Charge.provider_payment_id).in_([p.id for p in found])))}
    adopted = 0
    for payment in found:
        # Listed with the merchant's key, the payment is the provider's whole PaymentIntent: what the webhook's
        # read-back gets, so it is not asked for again.
        if payment.id not in known:
            adopted += await adopt(db, env, cards, acct, payment)
        elif known[payment.id][1] == ChargeStatus.PENDING:
            # Its charge is still waiting for the word (out at the provider when its process died, and no webhook):
            # the word is here.
            await report(db, env, cards, known[payment.id][0], payment)
    return adopted


def _same_amount(env: Env, intent: PaymentIntent, payment: Payment) -> bool:
    """Every card charge paygate opens asks for the whole intent, in its currency, in minor units."""
    decimals = payments.currency_decimals(env, intent.currency)
    return payment.currency.upper() == intent.currency.upper() \
        and from_minor(payment.amount, decimals) == intent.amount


async def _free_id(session: AsyncSession, intent: PaymentIntent, payment: Payment) -> str:
    """Our charge id from the metadata; one made from the provider's payment when that is not ours or is taken (a
    retry committed a charge under it, with another provider payment: two payments were made, both are recorded)."""
    named = payment.metadata.get("paygate_charge_id", "")
    if CHARGE_ID.fullmatch(named) and await session.get(Charge, named) is None:
        return named
    return payments.keyed_charge_id(intent.id, f"provider-payment-{payment.id}")


def _caller_key(charge: Charge, key: str) -> str:
    """An off-session caller's key (a renewal's) comes back only if the charge id was made from it: the renewal
    then finds its charge under it instead of charging again."""
    return key if key and len(key) <= 255 and payments.keyed_charge_id(charge.payment_intent_id, key) == charge.id \
        else ""


async def _card_of(session: AsyncSession, acct: Account, intent: PaymentIntent, charge: Charge,
                   payment: Payment) -> None:
    """A payment made for a provider customer paid with a saved card, or was saving the payer's card: the saved
    card is named on the charge, or saved when it succeeds (`payments.apply`), as the lost call would have done."""
    if not (payment.customer and payment.payment_method and intent.customer_id):
        return
    row = await saved.of_provider_card(session, acct, customer_id=intent.customer_id,
                                       provider_payment_method_id=payment.payment_method)
    if row is not None:
        charge.saved_payment_method_id = row.id
    else:
        charge.save_payment_method = True
