"""A card charge (DESIGN §9): opened on an intent, confirmed with a token or a saved card, and the provider's answer
applied to the charge and the intent through the intent's state machine, events in the same transaction.

The charge is one PaymentIntent at the merchant's card provider (amount in minor units, idempotency key = our
charge id, our ids in its metadata). Nothing here calls the provider inside a transaction (DESIGN §16,
server/cards/calls.py): questions that move no money are answered by replay (the unit of work runs again with the
answer), and the call that moves money is made after the charge is committed marked out at the provider
(`mark_out`, `PayNow`), its answer applied in a new unit of work under the intent's lock (`finish`). What keeps a
payment from being lost or made twice when a process dies, or an answer is lost, between the two:

* the charge is committed before the money call, `UNCONFIRMED` (the provider may charge the card), and the intent
  takes no other attempt while it is out (`CardCallOut`); once `OUT_SECONDS` have passed the read-through and the
  scheduler ask the provider what happened (`outcome.refresh`, `calls.resume` for an off-session payment whose
  provider id never came back), and a confirmation the provider never received is canceled there and the attempt
  fails;
* the provider's webhook about a payment is matched by the ids in its metadata (`recovery.adopt`, which also fills
  in a charge that was out and never learned its provider payment);
* charge ids are made from the intent and the attempt's place among its charges (`attempt_id`), or from an
  off-session caller's key, and the provider's idempotency keys from those, so a retry asks the very same question.

Outcomes, whoever reports them (the confirm answer, the webhook, the read-through), go through `apply`, which
changes nothing once the charge is decided: a replayed or late report is harmless.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from dataclasses import dataclass, field
from decimal import Decimal

from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.cards import accounts, saved, velocity
from server.cards.accounts import Account, Cards
from server.cards.models import SavedPaymentMethod
from server.clock import now_of
from server.errors import Unavailable, invalid
from server.ids import new_id
from server.payment_intents import attempts, settle
from server.payment_intents.aggregate import Loaded, load_one
from server.payment_intents.env import Env
from server.payment_intents.models import CARDS, Charge, PaymentIntent
from server.payment_intents.states import Event, Status, UnexpectedState, allowed
from server.payment_intents.totals import ChargeStatus, fee
from server.rails.card import (
    MAX_AMOUNT_MINOR,
    UNSUBMITTED,
    Declined,
    Payment,
    ProviderPaymentStatus,
    ProviderUnavailable,
    UnknownCard,
    from_minor,
    to_minor,
)

log = logging.getLogger("paygate.cards")
FIAT = "payment_method_options.fiat"
WITHDRAWN = ("withdrawn", "the payer chose to pay another way; the card payment was canceled at the provider")
# Our own marks in `provider_status`, beside the provider's (server/rails/card.py `ProviderPaymentStatus`): a charge
# whose confirmation was sent and not answered (the provider may have charged the card), and a free trial's card,
# saved and not charged.
UNCONFIRMED = "unconfirmed"
SAVED = "saved"
# How long a money call is out at the provider before the read-through and the scheduler may ask what became of it:
# the client's 10 s and its one retry's 10 s, a wait of up to 10 s for one of the merchant's places
# (server/cards/limits.py), and a margin.
OUT_SECONDS = 45
INTERRUPTED = ("interrupted", "the card payment was interrupted before the card provider answered; nothing was "
                              "charged by it; pay again")
LOST_CONFIRMATION = ("confirmation_lost", "the card provider did not answer the confirmation and never received it; "
                                          "the payment was canceled there and nothing was charged; pay again")
CANCELED = ("canceled", "the payment was canceled at the card provider")


def is_card(charge: Charge) -> bool:
    return charge.payment_method_type == CARDS


class CardCallOut(UnexpectedState):
    """409 `payment_intent_unexpected_state`: a card payment of the intent is out at the provider; its answer decides
    whether another attempt is needed."""

    def __init__(self, status: str) -> None:
        super().__init__(f"{status} (a card payment is being made; try again in a moment)", "open_a_payment_attempt")


@dataclass(frozen=True)
class PayNow:
    """A money call to make once its charge, marked out, is committed (server/cards/calls.py `pay`): a token's
    confirmation (`payment_id` set) or a saved card's off-session payment."""

    intent_id: str
    charge_id: str
    provider: str
    merchant_id: str
    livemode: bool
    payment_method: str  # the provider's card id
    customer: str  # the provider customer ("" for a token confirmed without saving)
    idempotency_key: str
    payment_id: str = ""  # a confirmation: the provider PaymentIntent made beforehand
    amount_minor: int = 0  # an off-session payment: what it asks for
    currency: str = ""
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """What a money call came back with: the payment, a decline, or nothing (`lost`: the card may be charged)."""

    payment: Payment | None = None
    declined: Declined | None = None
    lost: bool = False


def is_out(charge: Charge, now: int) -> bool:
    """A money call of this charge may be under way at the provider: within its window, or an off-session payment
    whose provider payment is still unknown (only `calls.resume` may ask again)."""
    return is_card(charge) and charge.status == ChargeStatus.PENDING and charge.provider_status == UNCONFIRMED \
        and (charge.provider_checked_at > now or not charge.provider_payment_id)


def check_nothing_out(loaded: Loaded, now: int) -> None:
    """No new attempt, of any method, while a card payment of the intent is out at the provider."""
    if any(is_out(c, now) for c in loaded.charges):
        raise CardCallOut(loaded.intent.status)


def mark_out(session: AsyncSession, charge: Charge, now: int) -> None:
    """The charge as it must be committed before its money call: the card may be charged from here on."""
    charge.provider_status = UNCONFIRMED
    charge.provider_checked_at = now + OUT_SECONDS
    session.add(charge)


def metadata(charge: Charge) -> dict[str, str]:
    """Our ids on the provider's PaymentIntent: what a payment we never recorded is rebuilt from (`recovery`), the
    off-session caller's key included, so a rebuilt renewal charge is found under it again."""
    ids = {"paygate_payment_intent_id": charge.payment_intent_id, "paygate_charge_id": charge.id,
           "paygate_merchant_id": charge.merchant_id}
    if charge.idempotency_key:
        ids["paygate_idempotency_key"] = charge.idempotency_key
    return ids


def currency_decimals(env: Env, currency: str) -> int:
    asset = env.catalogue.currency(currency)
    return asset.decimals if asset else 2


async def _account(session: AsyncSession, cards: Cards, loaded: Loaded) -> Account:
    intent = loaded.intent
    acct = await accounts.account(session, cards, intent.merchant_id, intent.livemode)
    if acct is None:
        mode = "live" if intent.livemode else "test"
        raise invalid("payment_method_type", f"this merchant takes no card payments in {mode} mode yet "
                                             "(no card provider keys); pay with crypto")
    return acct


def _standing(loaded: Loaded, now: int) -> Charge | None:
    """The intent's open card attempt that no card was submitted to yet: chosen again, it is reused."""
    for charge in reversed(loaded.charges):
        if is_card(charge) and charge.status == ChargeStatus.PENDING and charge.provider_status in UNSUBMITTED \
                and charge.quote_expires_at > now and not charge.saved_payment_method_id:
            return charge
    return None


def _check_payable(env: Env, loaded: Loaded, fiat: pb.FiatPaymentInput) -> None:
    intent = loaded.intent
    currency = env.catalogue.currency(intent.currency)
    if currency is None or not currency.is_fiat:
        raise invalid("payment_method_type", f"cards pay intents priced in a fiat currency; this one is priced in "
                                             f"{intent.currency}; pay with crypto")
    asked = fiat.currency.strip().upper()
    if asked and asked != intent.currency.upper():
        raise invalid(f"{FIAT}.currency", f"this payment is priced in {intent.currency}; cards pay in that currency")
    if intent.paid_asset_id or intent.status != Status.REQUIRES_PAYMENT_METHOD:
        raise UnexpectedState(intent.status, "open_a_payment_attempt")
    decimals = currency_decimals(env, intent.currency)
    if to_minor(intent.amount, decimals) > MAX_AMOUNT_MINOR:
        raise invalid("payment_method_type", f"card payments are at most "
                                             f"{from_minor(MAX_AMOUNT_MINOR, decimals)} {intent.currency}; "
                                             f"pay with crypto")


async def open_card(session: AsyncSession, env: Env, cards: Cards, loaded: Loaded,
                    fiat: pb.FiatPaymentInput) -> Loaded | PayNow:
    """`payment_method_type: cards`: a Pending card charge with its provider PaymentIntent; with `token`, confirmed
    server-side; with `payment_method_id`, paid off-session with that saved card. Those two return the `PayNow`
    to make once this unit of work is committed (server/cards/calls.py)."""
    await velocity.check(session, env.settings, loaded)
    intent = loaded.intent
    now = now_of(session)
    attempts.check_open(loaded, now)
    check_nothing_out(loaded, now)
    _check_payable(env, loaded, fiat)
    token, pm_id = fiat.token.strip(), fiat.payment_method_id.strip()
    if token and pm_id:
        raise invalid(f"{FIAT}.token", "give a token or a payment_method_id, not both")
    if fiat.save_payment_method and not intent.customer_id:
        raise invalid(f"{FIAT}.save_payment_method", "saving a card needs a customer on the payment intent")
    if intent.amount == 0 and loaded.invoice is not None:
        return await save_for_trial(session, env, cards, loaded, token, pm_id)
    if pm_id:
        # Keyed by the intent and the attempt's place among its charges: a retry after a lost answer (the call
        # undone) asks the provider the same question under the same key; after a decline the next attempt is a new
        # one; the same card on another intent is another question (the provider refuses a key reused with other
        # parameters for 24 h).
        await _withdraw_others(session, env, cards, loaded, now)
        return await pay_saved(session, env, cards, loaded, pm_id,
                               idempotency_key=f"saved-{intent.id}-{pm_id}-{len(loaded.charges)}")
    acct = await _account(session, cards, loaded)
    _check_token(acct, token)
    charge = _standing(loaded, now)
    if charge is None:
        await _withdraw_others(session, env, cards, loaded, now)
        # With a token the card is attached to the provider customer when it is confirmed (`_confirm_token`); only a
        # payment the payer's own page confirms is opened for the customer. So a retry with a token asks the same
        # question whether or not the first try saved the card.
        for_customer = intent.customer_id if fiat.save_payment_method and not token else None
        charge = await _new_charge(session, env, loaded, acct, now,
                                   charge_id=attempt_id(loaded, saved_card=bool(for_customer)))
        customer = await saved.provider_customer(session, acct, for_customer) if for_customer else ""
        try:
            payment = await acct.client.create_payment(
                amount=charge_minor(env, charge), currency=charge.asset_id, metadata=metadata(charge),
                idempotency_key=charge.id, customer=customer)
        except ProviderUnavailable as e:
            raise Unavailable(f"{e}; try again") from None
        charge.provider_payment_id = payment.id
        charge.provider_client_secret = payment.client_secret
        charge.provider_status = payment.status
    charge.save_payment_method = charge.save_payment_method or fiat.save_payment_method
    session.add(charge)
    _chosen(session, loaded, charge, now)
    if token:
        return await _confirm_token(session, env, acct, loaded, charge, token)
    return loaded


async def _withdraw_others(session: AsyncSession, env: Env, cards: Cards, loaded: Loaded, now: int) -> None:
    """A new card attempt: the intent's earlier ones still open at the provider (a 3-D Secure page left open, a
    saved card's payment awaiting the payer) are canceled there first, so that finishing one later cannot charge the
    payer a second time. One that succeeded meanwhile paid the intent: `check_open` then refuses the new attempt."""
    await withdraw_open(session, env, cards, loaded)
    attempts.check_open(loaded, now)


def _check_token(acct: Account, token: str) -> None:
    if token and not acct.rail.token.fullmatch(token):
        raise invalid(f"{FIAT}.token", f"expected a card token from {acct.provider}'s client library")


def _unknown_token(acct: Account) -> str:
    return f"{acct.provider} knows no such card token; tokenize the card again with its client library"


def charge_minor(env: Env, charge: Charge) -> int:
    return to_minor(charge.amount, currency_decimals(env, charge.asset_id))


def card_charge(intent: PaymentIntent, acct: Account, *, charge_id: str, now: int,
                idempotency_key: str = "") -> Charge:
    """A Pending card charge of the whole intent at `acct`'s provider (not in the session yet)."""
    return Charge(id=charge_id, payment_intent_id=intent.id, merchant_id=intent.merchant_id,
                  livemode=intent.livemode, payment_method_type=CARDS, asset_id=intent.currency, network="",
                  amount=intent.amount, exchange_rate=Decimal(1), deposit_address="", address_index=0,
                  quote_expires_at=intent.expired_at, status=ChargeStatus.PENDING, created=now,
                  payment_provider=acct.provider, provider_public_key=acct.publishable_key,
                  idempotency_key=idempotency_key)


def add_charge(session: AsyncSession, loaded: Loaded, charge: Charge) -> None:
    session.add(charge)
    loaded.charges.append(charge)
    loaded.transfers[charge.id] = []


async def _new_charge(session: AsyncSession, env: Env, loaded: Loaded, acct: Account, now: int,
                      idempotency_key: str = "", charge_id: str = "") -> Charge:
    intent = loaded.intent
    if len(loaded.charges) >= env.settings.max_charges_per_intent:
        raise attempts.TooManyAttempts(intent.status, env.settings.max_charges_per_intent)
    charge_id = charge_id or (keyed_charge_id(intent.id, idempotency_key) if idempotency_key else new_id("ch"))
    if await session.get(Charge, charge_id) is not None:
        charge_id = new_id("ch")  # taken (a payment rebuilt from the provider under it): never two rows, one id
    charge = card_charge(intent, acct, charge_id=charge_id, now=now, idempotency_key=idempotency_key)
    add_charge(session, loaded, charge)
    await session.flush()
    return charge


def keyed_charge_id(intent_id: str, idempotency_key: str) -> str:
    """The id of the charge made on `intent_id` under `idempotency_key`: the same on every attempt, so the
    provider's metadata, and with it the whole request under that key, is the same too."""
    digest = hashlib.sha256(f"{intent_id}\x00{idempotency_key}".encode()).digest()
    return "ch_" + base64.b32encode(digest).decode().lower().rstrip("=")[:24]


def charged_under(loaded: Loaded, idempotency_key: str) -> Charge | None:
    """The intent's charge made under an off-session caller's key: by the key it keeps, or by its id, made from the
    key (a charge rebuilt from the provider whose metadata did not carry the key)."""
    keyed = keyed_charge_id(loaded.intent.id, idempotency_key)
    return next((c for c in loaded.charges if c.idempotency_key == idempotency_key or c.id == keyed), None)


def attempt_id(loaded: Loaded, *, saved_card: bool = False) -> str:
    """The id of the intent's next card attempt: made from its place among the intent's charges, so it is the same
    when a try is made again after one that was never committed (a crash after the provider charged the card, a
    provider that did not answer). The provider's idempotency key is this id: the retry's PaymentIntent is the first
    try's. A payment opened for a provider customer (`saved_card`) asks another question, so it has its own."""
    place = f"card-{len(loaded.charges)}" + ("-saved" if saved_card else "")
    return keyed_charge_id(loaded.intent.id, place)


def _chosen(session: AsyncSession, loaded: Loaded, charge: Charge, now: int) -> None:
    """The charge becomes the intent's current attempt (last), and the intent's method `cards`."""
    if loaded.latest_charge is not charge:
        charge.sort_key = clock.sort_key()
        loaded.charges.remove(charge)
        loaded.charges.append(charge)
    intent = loaded.intent
    intent.payment_method_type = CARDS
    intent.updated = now
    session.add(charge)
    session.add(intent)


async def _confirm_token(session: AsyncSession, env: Env, acct: Account, loaded: Loaded, charge: Charge,
                         token: str) -> Loaded | PayNow:
    """The hosted page's flow: the card tokenized by Stripe.js, attached and confirmed (after this unit of work, as a
    `PayNow`). 3-D Secure leaves the charge Pending with `requires_action`, finished on the page with
    `confirmCardPayment(client_secret)`."""
    intent = loaded.intent
    customer = ""
    try:
        if charge.save_payment_method and intent.customer_id:
            customer = await saved.provider_customer(session, acct, intent.customer_id)
            card = await acct.client.save_token(customer, token)
            row = await saved.remember(session, acct, customer_id=intent.customer_id, provider_customer_id=customer,
                                       card=card)
            charge.saved_payment_method_id = row.id
        else:
            card = await acct.client.card_from_token(token)
    except Declined as e:
        await apply(session, env, loaded, charge, e.payment, failure=(e.code, e.message))
        return loaded
    except UnknownCard:
        raise invalid(f"{FIAT}.token", _unknown_token(acct)) from None  # the whole call is undone: nothing changes
    except ProviderUnavailable as e:
        raise Unavailable(f"{e}; try again") from None  # nothing was confirmed yet: undone, nothing charged
    mark_out(session, charge, now_of(session))
    return PayNow(intent_id=intent.id, charge_id=charge.id, provider=acct.provider, merchant_id=intent.merchant_id,
                  livemode=intent.livemode, payment_method=card.id, customer=customer,
                  idempotency_key=charge.id, payment_id=charge.provider_payment_id)


async def _unconfirmed(session: AsyncSession, env: Env, loaded: Loaded, charge: Charge) -> None:
    """The confirmation went out and no answer came back: the card may be charged. Undoing the charge's row would
    orphan that payment and let a retry charge the card again, so the charge is kept, Pending and `UNCONFIRMED`,
    and the intent moves to Processing until the provider's word arrives."""
    charge.provider_status = UNCONFIRMED
    session.add(charge)
    if allowed(loaded.intent.status, Event.TRANSACTION_SEEN):
        await settle.move(session, env, loaded, Event.TRANSACTION_SEEN)
    session.add(loaded.intent)


async def save_for_trial(session: AsyncSession, env: Env, cards: Cards, loaded: Loaded, token: str,
                         pm_id: str) -> Loaded:
    """A subscription's free trial by card (DESIGN §8): nothing to pay, so the card is saved at the provider and
    not charged, and the intent succeeds (`nothing_due`). A charge of 0 records which saved card it was: the
    subscription's renewals charge that one."""
    intent = loaded.intent
    check_nothing_out(loaded, now_of(session))
    if not intent.customer_id:
        raise invalid(f"{FIAT}.token", "a free trial by card saves the card for the renewals: it needs a customer "
                                       "on the payment intent")
    if not token and not pm_id:
        raise invalid(f"{FIAT}.token", "a free trial by card saves the card, not charged: give a card token "
                                       "(tok_…) or a saved payment_method_id")
    acct = await _account(session, cards, loaded)
    _check_token(acct, token)
    if pm_id:
        row = await saved.find(session, merchant_id=intent.merchant_id, livemode=intent.livemode,
                               customer_id=intent.customer_id, payment_method_id=pm_id)
        if row is None:
            raise invalid(f"{FIAT}.payment_method_id", "no such saved payment method of this payment's customer")
    else:
        try:
            customer = await saved.provider_customer(session, acct, intent.customer_id)
            card = await acct.client.save_token(customer, token)
        except Declined as e:
            raise invalid(f"{FIAT}.token", f"the card was refused: {e.message}") from None
        except UnknownCard:
            raise invalid(f"{FIAT}.token", _unknown_token(acct)) from None
        except ProviderUnavailable as e:
            raise Unavailable(f"{e}; try again") from None
        row = await saved.remember(session, acct, customer_id=intent.customer_id, provider_customer_id=customer,
                                   card=card)
    now = now_of(session)
    charge = await _new_charge(session, env, loaded, acct, now)
    charge.saved_payment_method_id = row.id
    charge.save_payment_method = True
    charge.status = ChargeStatus.SUCCESS
    charge.provider_status = SAVED
    _chosen(session, loaded, charge, now)
    await settle.move(session, env, loaded, Event.NOTHING_DUE, payment_method_type=CARDS)
    return loaded


async def pay_saved(session: AsyncSession, env: Env, cards: Cards, loaded: Loaded, payment_method_id: str, *,
                    idempotency_key: str) -> Loaded | PayNow:
    """A saved card, charged server-side and off-session: no client library, no payer step. The charge is committed
    marked out, and the payment made after (`PayNow`)."""
    intent = loaded.intent
    now = now_of(session)
    row = await saved.find(session, merchant_id=intent.merchant_id, livemode=intent.livemode,
                           customer_id=intent.customer_id, payment_method_id=payment_method_id)
    if row is None:
        raise invalid(f"{FIAT}.payment_method_id", "no such saved payment method of this payment's customer")
    if idempotency_key and charged_under(loaded, idempotency_key) is not None:
        return loaded  # charged already under this key: never twice
    acct = await accounts.account_at(session, cards, row.provider, intent.merchant_id, intent.livemode)
    if acct is None:
        raise invalid(f"{FIAT}.payment_method_id", f"the card was saved at {row.provider}, and this merchant has no "
                                                   f"{row.provider} keys in this mode any more")
    charge = await _new_charge(session, env, loaded, acct, now, idempotency_key)
    charge.saved_payment_method_id = row.id
    _chosen(session, loaded, charge, now)
    mark_out(session, charge, now)
    return _off_session(env, charge, row.provider_customer_id, row.provider_payment_method_id)


def _off_session(env: Env, charge: Charge, customer: str, payment_method: str) -> PayNow:
    return PayNow(intent_id=charge.payment_intent_id, charge_id=charge.id, provider=charge.payment_provider,
                  merchant_id=charge.merchant_id, livemode=charge.livemode, payment_method=payment_method,
                  customer=customer, idempotency_key=charge.idempotency_key or charge.id,
                  amount_minor=charge_minor(env, charge), currency=charge.asset_id, metadata=metadata(charge))


async def resumed(session: AsyncSession, env: Env, cards: Cards, charge_id: str) -> PayNow | None:
    """The off-session payment of a charge that was out and never learned its provider payment (its process died),
    to ask again under its own key while its intent still wants it; else the charge fails (`interrupted`): a payment
    the first request made after all is found by the recovery pass and recorded then (server/cards/recovery.py)."""
    charge = await session.get(Charge, charge_id)
    if charge is None:
        return None
    intent = await settle.lock(session, charge.payment_intent_id)
    row = await session.get(SavedPaymentMethod, charge.saved_payment_method_id) \
        if charge.saved_payment_method_id else None
    if intent is None:
        return None
    loaded = await load_one(session, intent)
    current = next((c for c in loaded.charges if c.id == charge_id), None)
    if current is None or current.status != ChargeStatus.PENDING or current.provider_payment_id:
        return None
    # Processing is its own doing (an answer lost, `finish`); canceled or paid another way, it wants no payment.
    if row is not None and intent.status != Status.CANCELED and not intent.paid_asset_id:
        return _off_session(env, current, row.provider_customer_id, row.provider_payment_method_id)
    await apply(session, env, loaded, current, None, failure=INTERRUPTED)
    return None


async def finish(session: AsyncSession, env: Env, cards: Cards, out: PayNow, answer: Answer) -> Loaded:
    """A money call's answer, applied under the intent's lock: the payment (or the decline) through `apply`; no
    answer leaves the charge `UNCONFIRMED` and the intent Processing until the provider's word arrives."""
    intent = await settle.lock(session, out.intent_id)
    assert intent is not None
    loaded = await load_one(session, intent)
    charge = next((c for c in loaded.charges if c.id == out.charge_id), None)
    if charge is None or charge.status != ChargeStatus.PENDING:
        return loaded  # decided meanwhile (its webhook, a read-through)
    charge.provider_checked_at = now_of(session)  # the window ends: the read-through may ask from now on
    payment = answer.payment or (answer.declined.payment if answer.declined is not None else None)
    if payment is not None and payment.id and not charge.provider_payment_id:
        charge.provider_payment_id, charge.provider_client_secret = payment.id, payment.client_secret
    if answer.lost and not charge.provider_payment_id:
        # An off-session payment with no answer: asked again under its key once a new window has passed
        # (`calls.resume`), so the client's own retries and a slow answer settle first.
        charge.provider_checked_at = now_of(session) + OUT_SECONDS
    if answer.declined is not None:
        await apply(session, env, loaded, charge, answer.declined.payment,
                    failure=(answer.declined.code, answer.declined.message), cards=cards)
    elif answer.payment is not None:
        await apply(session, env, loaded, charge, answer.payment, cards=cards)
    else:
        await _unconfirmed(session, env, loaded, charge)
    return loaded


async def withdraw_open(session: AsyncSession, env: Env, cards: Cards, loaded: Loaded) -> None:
    """Before the payer pays another way, the intent's open card payments are canceled at their provider, so the
    card cannot be charged as well (3-D Secure finished later, or a page confirming an opened charge). One that
    succeeded meanwhile is applied instead: the intent is then paid, and the caller's `check_open` refuses the
    other way. A provider that answers neither leaves everything as it was (503): never two payments."""
    check_nothing_out(loaded, now_of(session))
    for charge in list(loaded.charges):
        if not (is_card(charge) and charge.status == ChargeStatus.PENDING and charge.provider_payment_id):
            continue
        acct = await accounts.account_at(session, cards, charge.payment_provider, charge.merchant_id,
                                         charge.livemode)
        if acct is None:
            raise Unavailable(f"the open card payment {charge.id} cannot be withdrawn: this merchant has no "
                              f"{charge.payment_provider} keys in this mode any more")
        try:
            payment = await acct.client.cancel_payment(charge.provider_payment_id)
        except ProviderUnavailable:
            try:  # a payment that succeeded (or was canceled) meanwhile cannot be canceled: what is it now?
                payment = await acct.client.retrieve_payment(charge.provider_payment_id)
            except ProviderUnavailable as e:
                raise Unavailable(f"{e}; the open card payment must be withdrawn before paying another way; "
                                  "try again") from None
        if payment.status not in (ProviderPaymentStatus.CANCELED, ProviderPaymentStatus.SUCCEEDED):
            raise Unavailable(f"the open card payment {charge.id} is {payment.status} at {acct.provider} and could "
                              "not be withdrawn; try again")
        await apply(session, env, loaded, charge, payment,
                    failure=WITHDRAWN if payment.status == ProviderPaymentStatus.CANCELED else None, cards=cards)


async def apply(session: AsyncSession, env: Env, loaded: Loaded, charge: Charge, payment: Payment | None, *,
                failure: tuple[str, str] | None = None, cards: Cards | None = None) -> None:
    """The provider's word on a charge, applied once: succeeded → charge and intent Success (payment_details in the
    currency); a failed attempt → charge Failed with failure_code/failure_message, the intent back to
    RequiresPaymentMethod, `payment_intent.payment_failed`; processing → the intent Processing. A charge already
    decided is left alone (a replayed webhook, a late read-through)."""
    if charge.status != ChargeStatus.PENDING:
        return
    intent = loaded.intent
    before = settle.snapshot(env, loaded)
    status = payment.status if payment is not None else ProviderPaymentStatus.REQUIRES_PAYMENT_METHOD
    if charge.provider_status == UNCONFIRMED and failure is None:
        if status in UNSUBMITTED:
            return  # the confirmation has not (yet) arrived there: `outcome.refresh` cancels it, then it is decided
        if status == ProviderPaymentStatus.CANCELED:
            failure = LOST_CONFIRMATION
    charge.provider_status = status
    if payment is not None and payment.id and not charge.provider_payment_id:
        charge.provider_payment_id = payment.id
    session.add(charge)
    unpaid = UNSUBMITTED | {ProviderPaymentStatus.CANCELED}
    if failure is None and payment is not None and payment.failure_code and status in unpaid:
        failure = (payment.failure_code, payment.failure_message)
    if failure is None and status == ProviderPaymentStatus.CANCELED:
        failure = CANCELED
    if status == ProviderPaymentStatus.SUCCEEDED:
        await _succeeded(session, env, loaded, charge, payment, cards)
    elif failure is not None:
        charge.status = ChargeStatus.FAILED
        charge.failure_code, charge.failure_message = failure[0][:100], failure[1][:500]
        if allowed(intent.status, Event.PAYMENT_FAILED):
            await settle.move(session, env, loaded, Event.PAYMENT_FAILED)
        if intent.status != Status.CANCELED and failure is not WITHDRAWN:  # withdrawn attempts were not refused
            await settle.record(session, env, loaded, settle.FAILED_EVENT, before)
    elif status == ProviderPaymentStatus.PROCESSING and intent.status == Status.REQUIRES_PAYMENT_METHOD:
        await settle.move(session, env, loaded, Event.TRANSACTION_SEEN)
    session.add(intent)


async def _succeeded(session: AsyncSession, env: Env, loaded: Loaded, charge: Charge, payment: Payment | None,
                     cards: Cards | None) -> None:
    intent = loaded.intent
    charge.status = ChargeStatus.SUCCESS
    charge.amount_captured = charge.amount
    session.add(charge)
    if intent.paid_asset_id and intent.paid_asset_id != charge.asset_id:
        # Paid in another asset before this payment became known (one rebuilt from the provider late): captured on
        # its charge, refundable there, never added to payment_details in another unit (DESIGN §14).
        log.warning("card payment on an intent paid in another asset", extra={
            "charge": charge.id, "payment_intent": intent.id, "paid_asset": intent.paid_asset_id})
        return
    intent.paid_asset_id = intent.paid_asset_id or charge.asset_id
    intent.amount_captured += charge.amount
    intent.tx_fee = fee(intent.amount_captured, env.settings.tx_fee_percent, currency_decimals(env, charge.asset_id))
    intent.net_amount = intent.amount_captured - intent.tx_fee - intent.tax_fee - intent.amount_refunded
    if intent.status == Status.CANCELED:
        intent.amount_received_late += charge.amount  # paid at the provider after cancel or expiry: recorded
    if intent.status == Status.REQUIRES_PAYMENT_METHOD:
        await settle.move(session, env, loaded, Event.TRANSACTION_SEEN)
    if allowed(intent.status, Event.PAID_IN_FULL):
        await settle.move(session, env, loaded, Event.PAID_IN_FULL)
    if cards is not None and charge.save_payment_method and not charge.saved_payment_method_id and payment \
            and payment.payment_method and payment.customer and intent.customer_id:
        # The payer's own page confirmed with Stripe.js and asked to save the card: keep what it paid with.
        acct = await accounts.account_at(session, cards, charge.payment_provider, intent.merchant_id,
                                         intent.livemode)
        if acct is not None:
            try:
                card = await acct.client.keep_card(payment.payment_method, payment.customer)  # reusable off-session
            except ProviderUnavailable:
                return  # the payment stands; the card is simply not saved
            row = await saved.remember(session, acct, customer_id=intent.customer_id,
                                       provider_customer_id=payment.customer, card=card)
            charge.saved_payment_method_id = row.id


async def charge_saved_card(session: AsyncSession, env: Env, cards: Cards, loaded: Loaded, payment_method_id: str,
                            idempotency_key: str) -> Loaded | PayNow:
    """Pays `loaded` (locked by the caller: `settle.lock`) with the customer's saved card, off-session: what a
    subscription renewal calls. The same `idempotency_key` never charges twice (it is also the provider's key).
    The payment is a `PayNow` for after the commit (server/cards/calls.py); a decline then leaves a Failed charge and
    the intent RequiresPaymentMethod. The intent already charged under the key comes back as it is."""
    if not idempotency_key:
        raise invalid("idempotency_key", "an off-session charge needs an idempotency key")
    if charged_under(loaded, idempotency_key) is not None:
        return loaded
    attempts.check_open(loaded, now_of(session))
    check_nothing_out(loaded, now_of(session))
    _check_payable(env, loaded, pb.FiatPaymentInput())
    return await pay_saved(session, env, cards, loaded, payment_method_id, idempotency_key=idempotency_key)
