"""Payment intents: create, list, retrieve, choose a payment method, cancel. Scoped to the caller's merchant and mode.

Each operation validates, decides and writes in the caller's unit of work, events included (transactional outbox).
"""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa
from google.protobuf.json_format import MessageToDict
from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import json_fields, validate
from server.cards import payments as card_payments
from server.cards.accounts import Cards
from server.chains.models import ChainTransfer, TransferStatus
from server.clock import now_of
from server.context import Caller
from server.customers import service as customers
from server.customers.models import Customer
from server.errors import MissingParameter, invalid
from server.ids import new_id
from server.paging import Page, newest_first
from server.payment_intents import attempts, methods, pricing, settle
from server.payment_intents.aggregate import Loaded, load, load_one
from server.payment_intents.env import Env
from server.payment_intents.methods import PaymentMethod
from server.payment_intents.models import Charge, ChargeTransfer, PaymentIntent
from server.payment_intents.states import Event, Status, UnexpectedState, transition
from server.rates import RateUnavailable
from server.rates.quotes import price_code
from server.scoping import find_owned, get_owned, in_scope
from server.subscriptions import lifecycle as subscriptions

DEFAULT_EXPIRES_IN = 24 * 3600
MAX_EXPIRES_IN = 30 * 24 * 3600
EXPANDABLE = ("invoice", "subscription")


def payment_url(checkout_base: str, intent_id: str, client_secret: str) -> str:
    """The hosted checkout page of one intent (DESIGN §9)."""
    return f"{checkout_base}/pay/{intent_id}?client_secret={client_secret}"


def check_expand(expand: list[str]) -> None:
    """`invoice` and `subscription` fill invoice_details / subscription_details; others are refused."""
    for i, value in enumerate(expand):
        if value not in EXPANDABLE:
            raise invalid(f"expand[{i}]", f"{value!r} cannot be expanded; use invoice or subscription")


async def find(session: AsyncSession, caller: Caller, intent_id: str) -> PaymentIntent | None:
    return await find_owned(session, PaymentIntent, intent_id, caller)


async def get(session: AsyncSession, caller: Caller, intent_id: str, *, for_update: bool = False) -> Loaded:
    row = await get_owned(session, PaymentIntent, intent_id, caller, "payment_intent")
    if for_update:
        row = await settle.lock(session, row.id) or row
    return await load_one(session, row)


async def _amount_and_currency(env: Env, session: AsyncSession, caller: Caller,
                               request: pb.CreatePaymentIntentRequest) -> tuple[Decimal, str, pricing.Priced | None]:
    priced = await pricing.price_link(session, caller, request, env.catalogue, env.settings) \
        if request.payment_link_id else None
    if priced is not None:
        trial = priced.plan is not None and priced.plan.trial_period_days > 0
        if priced.amount <= 0 and not trial:
            # Nothing to pay is not a payment: no quote, no deposit address. Only a selling plan's free trial starts
            # with an intent of 0, which succeeds when a payment method is chosen.
            raise invalid("payment_link_id", f"the payment link prices this purchase at {priced.amount} "
                                             f"{priced.currency}; a payment intent needs an amount above zero")
        if request.amount and validate.amount("amount", request.amount) != priced.amount:
            raise invalid("amount", f"the payment link prices this purchase at {priced.amount} {priced.currency}; "
                                    "leave amount out")
        if request.currency and request.currency != priced.currency:
            raise invalid("currency", f"the payment link sells in {priced.currency}")
        return priced.amount, priced.currency, priced
    if not request.amount:
        raise MissingParameter("amount")
    if not request.currency:
        raise MissingParameter("currency")
    amount = validate.amount("amount", request.amount, allow_zero=False)
    currency = env.catalogue.currency(request.currency)
    if currency is None or (not currency.is_fiat and currency.is_mainnet != caller.livemode):
        raise invalid("currency", f"{request.currency!r} is not a currency or asset of this mode")
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > currency.decimals:
        raise invalid("amount", f"at most {currency.decimals} decimal places in {currency.id}")
    try:
        await env.rates.usd_price(price_code(currency))
    except RateUnavailable:
        raise invalid("currency", f"no exchange rate for {request.currency}; it cannot be paid in crypto") from None
    return amount, currency.id, None


async def create(session: AsyncSession, env: Env, caller: Caller, request: pb.CreatePaymentIntentRequest) -> Loaded:
    env.secrets.check_available(caller.livemode)  # a live intent needs a configured secret_key
    amount, currency, priced = await _amount_and_currency(env, session, caller, request)
    customer: Customer | None = None
    if request.customer:
        customer = await customers.find(session, caller, request.customer)
        if customer is None:
            raise invalid("customer", "no such customer")
    expires_in = request.expires_in if request.HasField("expires_in") else DEFAULT_EXPIRES_IN
    if not 1 <= expires_in <= MAX_EXPIRES_IN:
        raise invalid("expires_in", f"must be from 1 to {MAX_EXPIRES_IN} seconds (30 days)")
    method = request.payment_method_type.strip()
    if method and method not in methods.registered():
        raise invalid("payment_method_type", _use())
    deposit_asset = request.permanent_deposit_asset_id.strip()
    if request.permanent_deposit and customer is None:
        raise invalid("permanent_deposit", "a permanent deposit address belongs to a customer; give customer")
    if deposit_asset:
        if not request.permanent_deposit:
            raise invalid("permanent_deposit_asset_id", "only with permanent_deposit=true")
        attempts.payable_asset(env, deposit_asset, caller.livemode, "permanent_deposit_asset_id")
    now = now_of(session)
    intent = PaymentIntent(
        id=new_id("pi"), merchant_id=caller.merchant_id, livemode=caller.livemode, amount=amount, currency=currency,
        customer_id=customer.id if customer else None,
        description=validate.text("description", request.description, max_length=1000),
        metadata_=json_fields.metadata_of(request.metadata),
        merchant_order_id=validate.text("merchant_order_id", request.merchant_order_id.strip()),
        payment_method_type=method, receipt_email=validate.email("receipt_email", request.receipt_email),
        return_url=validate.url("return_url", request.return_url),
        shipping_address=MessageToDict(request.shipping_address, preserving_proto_field_name=True)
        if request.HasField("shipping_address") else None,
        status=Status.REQUIRES_PAYMENT_METHOD, complete_on_first_payment=request.complete_on_first_payment,
        permanent_deposit=request.permanent_deposit, permanent_deposit_asset_id=deposit_asset,
        expired_at=now + expires_in, payment_link_id=priced.snapshot["payment_link_id"] if priced else None,
        link_snapshot=priced.snapshot if priced else None,
        link_product_id=str(priced.snapshot["product"]["id"]) if priced else None,
        shopper_ip=priced.shopper_ip if priced else "",
        product_version=priced.product_version if priced else None, created=now, updated=now)
    session.add(intent)
    await session.flush()
    loaded = Loaded(intent=intent, customer=customer, merchant_name=(await load_one(session, intent)).merchant_name)
    if priced is not None and priced.plan is not None and priced.variant is not None:
        # A selling plan: the incomplete subscription and its first invoice, in this transaction (DESIGN §8).
        secret = env.secrets.of(intent.id, intent.livemode)
        _, loaded.invoice = await subscriptions.create_for_intent(
            session, intent, priced.plan, priced.variant, priced.quantity,
            pricing.decimals_of(env.catalogue, currency), payment_url(env.settings.checkout_base, intent.id, secret),
            priced.snapshot)
    await settle.record(session, env, loaded, "payment_intent.created", None)
    return loaded


async def list_page(session: AsyncSession, caller: Caller, page: Page,
                    request: pb.ListPaymentIntentsRequest) -> tuple[list[Loaded], int]:
    check_expand(list(request.expand))
    where = in_scope(PaymentIntent, caller)
    if request.customer:
        where.append(col(PaymentIntent.customer_id) == request.customer.strip())
    elif request.customer_email:
        email = request.customer_email.strip().lower()
        where.append(col(PaymentIntent.customer_id).in_(
            select(Customer.id).where(*in_scope(Customer, caller), sa.func.lower(Customer.email) == email)))
    if request.merchant_order_id:
        where.append(col(PaymentIntent.merchant_order_id) == request.merchant_order_id.strip())
    rows, total = await newest_first(session, PaymentIntent, where, page)
    return await load(session, rows), total


def _use() -> str:
    return "use " + " or ".join(methods.registered())  # "use crypto or cards"


def _method_of(method: str, options: pb.PaymentMethodOptionsInput) -> PaymentMethod:
    """The method chosen by name, else by the one field of `payment_method_options` given."""
    method = method.strip()
    registered = methods.registered()
    if not method:
        named = next((m for m in registered.values() if options.HasField(m.options_field)), None)
        if named is None:
            raise MissingParameter("payment_method_type")
        return named
    if method not in registered:
        raise invalid("payment_method_type", _use())
    return registered[method]


async def choose_method(session: AsyncSession, env: Env, loaded: Loaded, method: str,
                        options: pb.PaymentMethodOptionsInput, cards: Cards | None = None
                        ) -> Loaded | card_payments.PayNow:
    """Choosing a method opens its payment attempt (methods.py `PaymentMethod.open_attempt`), once every other
    method's open attempts are withdrawn, so that the payer cannot pay twice: crypto opens a quote (or returns the
    open one for the same asset); cards a card charge at its provider (server/cards), with the card payment to make
    after the commit when it moves money (`PayNow`: run it under server/cards/calls.py `choose`)."""
    attempts.check_open(loaded, now_of(session))
    chosen = _method_of(method, options)
    for other in methods.registered().values():
        if other is not chosen:
            await other.withdraw_open(session, env, loaded, cards)
    return await chosen.open_attempt(session, env, loaded, options, cards)


async def update(session: AsyncSession, env: Env, caller: Caller, request: pb.UpdatePaymentIntentRequest,
                 cards: Cards | None = None) -> Loaded | card_payments.PayNow:
    loaded = await get(session, caller, request.id, for_update=True)
    return await choose_method(session, env, loaded, request.payment_method_type, request.payment_method_options,
                               cards)


async def _has_confirmed_funds(session: AsyncSession, intent_id: str) -> bool:
    """Confirmed funds that pay a charge: only in the charge's own asset (unexpected funds never count as paid)."""
    row = await session.exec(
        select(ChainTransfer.id).join(ChargeTransfer, col(ChargeTransfer.transfer_id) == col(ChainTransfer.id))
        .join(Charge, col(Charge.id) == col(ChargeTransfer.charge_id))
        .where(Charge.payment_intent_id == intent_id, ChainTransfer.status == TransferStatus.CONFIRMED,
               col(ChainTransfer.asset_id) == col(Charge.asset_id)).limit(1))
    return row.first() is not None


async def captured_in(session: AsyncSession, intent_id: str, asset_id: str) -> Decimal:
    """Approved funds the intent's charges in `asset_id` captured (each counts only its own asset's transfers).
    What a refund in that asset may pay back at most; unexpected funds in other assets are never included."""
    rows = await session.exec(select(col(Charge.amount_captured)).where(Charge.payment_intent_id == intent_id,
                                                                   Charge.asset_id == asset_id))
    return sum((Decimal(a) for a in rows), Decimal(0))


async def cancel(session: AsyncSession, env: Env, caller: Caller, request: pb.CancelPaymentIntentRequest) -> Loaded:
    loaded = await get(session, caller, request.id, for_update=True)
    intent = loaded.intent
    transition(intent.status, Event.CANCEL)  # refuses Processing (funds in flight), Success, PartialPaid, …
    card_payments.check_nothing_out(loaded, now_of(session))  # a card payment out at the provider decides first
    if await _has_confirmed_funds(session, intent.id):  # e.g. frozen funds of a payment AML rejected
        raise UnexpectedState(f"{intent.status} with confirmed funds", Event.CANCEL)
    reason = validate.text("reason", request.reason.strip()) if request.HasField("reason") else ""
    await settle.move(session, env, loaded, Event.CANCEL, canceled_at=now_of(session), cancellation_reason=reason)
    return loaded


async def expire(session: AsyncSession, env: Env, intent: PaymentIntent, now: int) -> None:
    """Expiry with nothing paid: Canceled with cancellation_reason `expired`."""
    loaded = await load_one(session, intent)
    await settle.move(session, env, loaded, Event.EXPIRE, canceled_at=now, cancellation_reason="expired")
