"""The hosted checkout page's own calls: a link's public view, one-time codes, and starting a payment.

A payment link is public: anyone holding its address may read it and start paying it. The merchant and mode are
the link's; a public key, when given, must be the link's merchant's. Inactive links answer with `active` false and
nothing to buy; unknown ids answer `404 payment_link_not_found`.

What the page shows `available` is what can be bought now: the units open checkouts hold (server/products/stock.py)
are not. A shopper who edits their order starts again naming the checkout it replaces (`_replace`): that one ends,
and its hold with it, unless money is on its way to it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

import sqlalchemy as sa
from paygate.v1 import checkout_pb2 as pb
from paygate.v1 import customers_pb2, payment_intents_pb2, subscriptions_pb2
from paygate.v1.money_pb2 import Price
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.checkout.code_delivery import CodeMessage, Sender
from server.context import Caller
from server.customers import identity
from server.customers.models import VerificationCode
from server.errors import InvalidArgument, NotFound, RateLimited, invalid
from server.merchants.models import Merchant
from server.merchants.service import keys_of
from server.payment_intents import methods
from server.payment_intents import service as intents
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import Status, UnexpectedState
from server.payment_links import service as links
from server.payment_links.convert import product_of, url_of
from server.payment_links.models import PaymentLink
from server.products import availability, stock
from server.products.convert import option_names, variant_title
from server.products.models import Product, ProductVariant, SellingPlan
from server.products.rules import BILLING_CYCLES, POLICY_TYPES
from server.rpc.auth import Authenticator
from server.selling_plans import membership
from server.validate import money_text

CODE_LIFETIME_SECONDS = 600
CENT = Decimal("0.01")
# A shopper may ask for another code this long after the last one (and at most identity.MAX_CODES_PER_WINDOW an hour
# per address, identity.SendCaps per client IP and per link).
RESEND_SECONDS = 30
# The cancellation_reason of a checkout the shopper replaced by editing their order.
REPLACED = "replaced"
_CYCLE_ENUM = {v: k for k, v in BILLING_CYCLES.items()}
_POLICY_ENUM = {v: k for k, v in POLICY_TYPES.items()}


class LinkInactive(InvalidArgument):
    reason = "payment_link_inactive"


async def _link_row(session: AsyncSession, auth: Authenticator, link_id: str, key: str) -> PaymentLink:
    row = await session.get(PaymentLink, link_id.strip())
    if row is None:
        raise NotFound("payment_link", link_id)
    if key:
        caller = await auth.public_key_caller(key)
        if caller.merchant_id != row.merchant_id or caller.livemode != row.livemode:
            # Another merchant's (or mode's) link looks like no link at all.
            raise NotFound("payment_link", link_id)
    return row


def link_caller(row: PaymentLink) -> Caller:
    """The link's merchant and mode: what the page may do is what the link allows, nothing else of the merchant."""
    return Caller(merchant_id=row.merchant_id, livemode=row.livemode, key_kind="public")


async def public_key(session: AsyncSession, merchant_id: str, livemode: bool) -> str:
    """The public key the hosted page calls with: the merchant's newest that works in the mode (a rolled one's
    successor, never a revoked or expired key: server/merchants/service.py `keys_of`)."""
    keys = [k for k in await keys_of(session, merchant_id) if k.kind == "public" and k.livemode == livemode]
    return keys[-1].lookup if keys else ""


async def method_types(session: AsyncSession, merchant_id: str, livemode: bool) -> list[str]:
    """The methods the page offers the merchant's shoppers in the mode (methods.py `PaymentMethod.offered`): crypto
    always; cards when the merchant has a card provider's keys for the mode."""
    return [name for name, method in methods.registered().items()
            if await method.offered(session, merchant_id, livemode)]


async def _merchant_name(session: AsyncSession, merchant_id: str) -> str:
    merchant = await session.get(Merchant, merchant_id)
    return merchant.name if merchant else ""


def _tiers(plan: SellingPlan, price: Decimal) -> list[subscriptions_pb2.PricingTier]:
    """The price of each cycle range of a plan for one unit of a variant, discounts applied (rounded half up to
    the currency's cents the way the subscription will charge them)."""
    out = []
    policies = sorted(plan.pricing_policies, key=lambda p: int(p["after_cycle"])) or \
        [{"policy_type": "RECURRING", "after_cycle": 0, "discount_percentage": "0"}]
    for i, p in enumerate(policies):
        discount = Decimal(str(p["discount_percentage"]))
        after = price - (price * discount / 100).quantize(CENT, ROUND_HALF_UP) if discount else price
        start = int(p["after_cycle"]) + 1
        nxt = int(policies[i + 1]["after_cycle"]) if i + 1 < len(policies) else 0
        total = nxt - int(p["after_cycle"]) if nxt else 0
        described = f"Cycles {start}-{nxt}" if nxt else (f"From cycle {start}" if start > 1 else "Every cycle")
        out.append(subscriptions_pb2.PricingTier(
            policy_type=_POLICY_ENUM[p["policy_type"]], after_cycle=int(p["after_cycle"]),
            cycle_description=described, total_cycles=total, base_price=money_text(price),
            selling_plan_discount=money_text(discount), subtotal_before_policy=money_text(price),
            subtotal_after_policy=money_text(after)))
    return out


def _variant(product: Product, v: ProductVariant, names: list[str], plans: list[SellingPlan],
             held: int) -> pb.CheckoutVariant:
    """`held`: the units of the variant open checkouts hold."""
    return pb.CheckoutVariant(
        variant_id=v.id, title=variant_title(v, names), option_values=v.option_values,
        price=Price(amount=money_text(v.price), currency=v.currency),
        available=availability.available(product, v, held),
        selling_plans=[pb.CheckoutSellingPlan(
            id=p.id, name=p.name, description=p.description, billing_cycle=_CYCLE_ENUM[p.billing_cycle],
            billing_cycle_interval=p.billing_cycle_interval, trial_period_days=p.trial_period_days,
            pricing_tiers=_tiers(p, v.price)) for p in plans])


async def checkout_link(session: AsyncSession, auth: Authenticator, env: Env, link_id: str,
                        key: str) -> pb.CheckoutLink:
    row = await _link_row(session, auth, link_id, key)
    out = pb.CheckoutLink(id=row.id, active=row.active, url=url_of(env.settings.checkout_base, row.id),
                          livemode=row.livemode, merchant_id=row.merchant_id,
                          merchant_name=await _merchant_name(session, row.merchant_id),
                          public_key=await public_key(session, row.merchant_id, row.livemode),
                          return_url=row.return_url)
    loaded = await links.get(session, link_caller(row), row.id)
    out.product.CopyFrom(product_of(loaded))
    if not row.active:
        return out
    product = loaded.product
    plans = await membership.taking_subscribers(session, (await membership.plans_of(session, [product.id]))[product.id])
    names = option_names(product.options)
    out.product_version = product.version
    out.default_variant_id = row.default_variant_id
    out.collect_shipping_address = product.collect_shipping_address
    out.collect_tax_address = product.collect_tax_address
    out.product_image_url = product.image_url
    held = await stock.held(session, [v.id for v in loaded.variants.values() if v.inventory_quantity is not None],
                            hold_seconds=env.settings.checkout_hold_seconds)
    prices = []
    for item in loaded.items:
        variant = loaded.variants[item.variant_id]
        if item.kind == "primary":
            out.primary_variants.append(_variant(product, variant, names, plans, held[variant.id]))
            prices.append(variant.price)
        else:
            out.addon_variants.add(variant=_variant(product, variant, names, [], held[variant.id]),
                                   min_quantity=item.min_quantity, max_quantity=item.max_quantity)
    if prices:
        out.price_range.min, out.price_range.max = money_text(min(prices)), money_text(max(prices))
        out.price_range.currency = loaded.variants[row.default_variant_id].currency
    out.payment_method_types.extend(await method_types(session, row.merchant_id, row.livemode))
    out.asset_ids.extend(a.id for a in env.catalogue.for_mode(row.livemode) if not a.is_fiat and env.health.payable(a))
    return out


@dataclass(frozen=True)
class SavedCode:
    """A code stored and not yet delivered: `message` goes to `channel`'s sender, and the row `code_id` is
    forgotten if it cannot be (a code never delivered counts against no cap)."""

    code_id: str
    channel: str
    message: CodeMessage
    response: pb.SendVerificationCodeResponse


async def save_code(session: AsyncSession, auth: Authenticator, senders: Mapping[str, Sender],
                    request: pb.SendVerificationCodeRequest, *, now: int, caps: identity.SendCaps) -> SavedCode:
    """The checks and the stored code of a code request; the caller sends it after the commit, so that no
    transaction waits on the mail server (DESIGN §16)."""
    channel, address = _code_address(request, senders)
    row = await _link_row(session, auth, request.payment_link_id, request.key)
    if not row.active:
        raise LinkInactive("payment_link_id: the payment link is not active", field="payment_link_id")
    caller = link_caller(row)
    subject = identity.code_subject(channel, address, field=channel)
    last = (await session.exec(select(VerificationCode.created).where(
        VerificationCode.merchant_id == caller.merchant_id, VerificationCode.livemode == caller.livemode,
        VerificationCode.channel == channel, VerificationCode.subject == subject,
    ).order_by(col(VerificationCode.created).desc()).limit(1))).first()
    if last is not None and now - last < RESEND_SECONDS:
        wait = RESEND_SECONDS - (now - last)
        raise RateLimited(wait, f"{channel}: a code was just sent; ask for another in {wait} s", field=channel)
    code_id, code = await identity.issue_verification_code(session, caller, channel, subject, CODE_LIFETIME_SECONDS,
                                                           now=now, field=channel, payment_link_id=row.id,
                                                           caps=caps)
    message = CodeMessage(to=subject, code=code, merchant_name=await _merchant_name(session, row.merchant_id),
                          minutes=CODE_LIFETIME_SECONDS // 60)
    return SavedCode(code_id, channel, message, pb.SendVerificationCodeResponse(
        expires_at=now + CODE_LIFETIME_SECONDS, retry_after=RESEND_SECONDS))


async def forget_code(session: AsyncSession, code_id: str) -> None:
    await session.exec(sa.delete(VerificationCode).where(col(VerificationCode.id) == code_id))


# E.164: "+", a country code not starting with 0, at most 15 digits in all; ASCII digits only.
_E164 = re.compile(r"\+[1-9][0-9]{6,14}", re.ASCII)


def _code_address(request: pb.SendVerificationCodeRequest, senders: Mapping[str, Sender]) -> tuple[str, str]:
    """The channel and address of a code request: exactly one of email or phone, on a channel this gateway sends."""
    if request.email and request.phone:
        raise invalid("phone", "give either email or phone, not both")
    if not request.phone:
        if not request.email.strip():
            raise invalid("email", "give the email (or the phone) the code is sent to")
        return "email", request.email
    if "phone" not in senders:
        raise invalid("phone", "phone codes are not enabled on this gateway; use email")
    if not _E164.fullmatch(request.phone):
        raise invalid("phone", "expected an E.164 number: + and 7 to 15 digits, e.g. +4712345678")
    return "phone", request.phone


async def _replace(session: AsyncSession, env: Env, link: PaymentLink,
                   request: pb.StartCheckoutRequest) -> Loaded | None:
    """The shopper's earlier checkout on this link, which this one replaces (they edited their order), canceled
    through the cancel call's path (its events included) if nothing was paid to it yet: the stock it held is then
    for sale to this checkout, in this transaction, which undoes the cancel too if this checkout is refused. One
    with money on its way (Processing, PartialPaid) keeps its hold, since canceling it would turn that payment into
    a late one; one that ended is left as it is. The canceled intent, else None."""
    intent_id = request.replaces_payment_intent_id.strip()
    if not intent_id and not request.replaces_client_secret:
        return None
    if not intent_id:
        raise invalid("replaces_payment_intent_id", "give the payment intent replaces_client_secret is of")
    if not request.replaces_client_secret:
        raise invalid("replaces_client_secret", "give the client secret of replaces_payment_intent_id")
    intent = await session.get(PaymentIntent, intent_id)
    if intent is None or intent.payment_link_id != link.id or intent.merchant_id != link.merchant_id or \
            intent.livemode != link.livemode or \
            not env.secrets.matches(intent.id, intent.livemode, request.replaces_client_secret):
        # One answer for unknown ids, other links' checkouts and wrong secrets: nothing about them leaks.
        raise invalid("replaces_payment_intent_id", "no such checkout of this payment link")
    if intent.status != Status.REQUIRES_PAYMENT_METHOD:
        return None
    try:
        return await intents.cancel(session, env, link_caller(link),
                                    payment_intents_pb2.CancelPaymentIntentRequest(id=intent.id, reason=REPLACED))
    except UnexpectedState:  # paid meanwhile (read again under its lock), or confirmed funds frozen on it
        return None


async def start(session: AsyncSession, auth: Authenticator, env: Env, request: pb.StartCheckoutRequest, *,
                now: int) -> tuple[pb.StartCheckoutResponse, Loaded | None]:
    """The shopper's payment intent for the link, and the checkout it replaced (canceled), if any: its card
    payment still pending at the provider is the caller's to cancel there, after the commit."""
    row = await _link_row(session, auth, request.payment_link_id, request.key)
    if not row.active:
        raise LinkInactive("payment_link_id: the payment link is not active", field="payment_link_id")
    caller = link_caller(row)
    resolve = customers_pb2.ResolveIdentityRequest(
        payment_link_id=row.id, email=request.email, phone=request.phone,
        verification_code=request.verification_code, ephemeral_token=request.ephemeral_token,
        auth_token=request.auth_token)
    methods = sum(bool(m) for m in (request.verification_code or request.email or request.phone,
                                    request.ephemeral_token, request.auth_token))
    if methods == 0:
        raise invalid("email", "sign in with the one-time code (email or phone, and verification_code), "
                               "an ephemeral_token or an auth_token")
    who = await identity.resolve(session, caller, resolve, now=now)
    auth_token = request.auth_token
    if who.customer_id and not auth_token:
        auth_token = await identity.issue_auth_token(session, caller, who.customer_id, now=now)
    return_url = who.return_url or row.return_url
    create = payment_intents_pb2.CreatePaymentIntentRequest(
        payment_link_id=row.id, customer=who.customer_id, receipt_email=who.email, return_url=return_url,
        merchant_order_id=who.order_id, payment_method_type="")
    if request.HasField("primary_variant"):
        create.primary_variant.CopyFrom(request.primary_variant)
    create.addons.extend(request.addons)
    if request.HasField("product_version"):
        create.product_version = request.product_version
    replaced = await _replace(session, env, row, request)
    loaded = await intents.create(session, env, caller, create)
    return pb.StartCheckoutResponse(
        payment_intent_id=loaded.intent.id, client_secret=env.secrets.of(loaded.intent.id, loaded.intent.livemode),
        public_key=await public_key(session, row.merchant_id, row.livemode), customer_id=who.customer_id,
        email=who.email, auth_token=auth_token, return_url=return_url), replaced


async def session_info(session: AsyncSession, env: Env, caller: Caller | None,
                       request: pb.GetCheckoutSessionRequest) -> pb.GetCheckoutSessionResponse:
    intent = await session.get(PaymentIntent, request.payment_intent_id.strip())
    # Without its client secret an intent is not there: the answer never tells which ids exist. An API key, when
    # one is sent, must be of the intent's merchant and mode as everywhere else.
    foreign = caller is not None and intent is not None and (caller.merchant_id, caller.livemode) != \
        (intent.merchant_id, intent.livemode)
    if intent is None or foreign or not (request.client_secret and
                                         env.secrets.matches(intent.id, intent.livemode, request.client_secret)):
        raise NotFound("payment_intent", request.payment_intent_id)
    return_url = intent.return_url
    if not return_url and intent.payment_link_id:
        link = await session.get(PaymentLink, intent.payment_link_id)
        return_url = link.return_url if link else ""
    return pb.GetCheckoutSessionResponse(
        public_key=await public_key(session, intent.merchant_id, intent.livemode), merchant_id=intent.merchant_id,
        merchant_name=await _merchant_name(session, intent.merchant_id), livemode=intent.livemode,
        return_url=return_url, payment_link_id=intent.payment_link_id or "",
        payment_method_types=await method_types(session, intent.merchant_id, intent.livemode))
