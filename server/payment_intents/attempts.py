"""Opening a crypto payment attempt: a quote, a deposit address, and the watched-address row for the watcher.

No network I/O: the quote comes from the rate source (the configured table; a live feed must serve from its cache)
and the address is derived locally, so the whole attempt is one short transaction.
"""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from server import clock
from server.catalogue.catalogue import Asset
from server.chains.models import NetworkCursor, WatchedAddress
from server.clock import now_of
from server.errors import MissingParameter, invalid
from server.ids import new_id
from server.invoices.states import Status as InvoiceStatus
from server.payment_intents.aggregate import Loaded
from server.payment_intents.env import Env
from server.payment_intents.models import CRYPTO, Charge
from server.payment_intents.states import OPEN_FOR_PAYMENT, UnexpectedState
from server.payment_intents.totals import ChargeStatus
from server.rails.registry import key_scheme
from server.rates import RateUnavailable
from server.rates.quotes import quote
from server.wallet.addresses import new_deposit_address
from server.wallet.models import PermanentDeposit

ASSET_FIELD = "payment_method_options.crypto.asset_id"
# Late funds are still recorded this long after the quote (and the intent) expired.
WATCH_GRACE_SECONDS = 24 * 3600


# An invoice in any other status is closed (paid, void, uncollectible): its intent takes no new attempt.
_INVOICE_PAYABLE = frozenset({InvoiceStatus.DRAFT, InvoiceStatus.OPEN})


def closed_invoice(loaded: Loaded) -> str:
    """The status of the closed invoice the intent pays, which asks for no more money; '' if none is closed."""
    invoice = loaded.invoice
    return invoice.status if invoice is not None and invoice.status not in _INVOICE_PAYABLE else ""


def check_open(loaded: Loaded, now: int) -> None:
    """A new attempt needs an intent that still takes payments, has not expired, and, if it pays an invoice, whose
    invoice is not closed. An invoice closed while its intent is PartialPaid leaves the intent as it is (it cannot
    be canceled after confirmed funds, DESIGN §4; server/subscriptions/closing.py): what arrived stays refundable,
    but no attempt, new or shown again, asks the payer for more."""
    intent = loaded.intent
    if intent.status not in OPEN_FOR_PAYMENT or intent.expired_at <= now:
        state = intent.status if intent.expired_at > now else f"{intent.status} (expired)"
        raise UnexpectedState(state, "open_a_payment_attempt")
    if closed := closed_invoice(loaded):
        raise UnexpectedState(f"{intent.status} (its invoice is {closed})", "open_a_payment_attempt")


def payable_asset(env: Env, asset_id: str, livemode: bool, field: str = ASSET_FIELD) -> Asset:
    """Only payable crypto assets of the caller's mode: test keys pay with -TEST assets, live keys on mainnets, and
    only while their network's RPC answers (DESIGN §12, `server/catalogue/health.py`)."""
    asset = env.catalogue.by_id.get(asset_id)
    if asset is None or asset.is_fiat:
        raise invalid(field, f"{asset_id!r} is not a crypto asset of the catalogue")
    if asset.is_mainnet != livemode:
        hint = "test keys pay with assets ending in -TEST" if not livemode else "live keys pay on production networks"
        raise invalid(field, f"{asset_id!r} is not available in {'live' if livemode else 'test'} mode; {hint}")
    if not env.health.payable(asset):  # the servicer refreshed the probes (env.health.answering()) beforehand
        raise invalid(field, f"{asset_id!r} is not payable now (its network's RPC did not answer recently); "
                             "choose another asset")
    return asset


class TooManyAttempts(UnexpectedState):
    """409 `payment_intent_unexpected_state` (on the checkout: `ErrStatusUnexpected`). A conflict rather than
    `parameter_invalid`: the asset id is fine and would open an attempt on any other intent; it is this intent's state
    (every attempt it may open already opened) that refuses it, and the fix is a new intent, not another value."""

    def __init__(self, status: str, limit: int) -> None:
        super().__init__(f"{status} with all {limit} payment attempts used", "open_a_payment_attempt")
        self.message = (f"a payment intent takes at most {limit} payment attempts and this one has used them all; "
                        "create a new payment intent")
        self.args = (self.message,)


def open_charge(loaded: Loaded, asset_id: str, now: int) -> Charge | None:
    """The intent's open attempt in `asset_id`: pending, quote still valid. At most one per asset, so switching
    assets back and forth never mints new deposit addresses (each one is watched by every scan)."""
    for charge in reversed(loaded.charges):
        if charge.asset_id == asset_id and charge.status == ChargeStatus.PENDING and charge.quote_expires_at > now:
            return charge
    return None


def _make_current(session: AsyncSession, loaded: Loaded, charge: Charge) -> Loaded:
    """Chosen again, the open attempt becomes the intent's current one (the last charge, shown as
    payment_method_options): charges are ordered by when they were last chosen."""
    if loaded.latest_charge is not charge:
        charge.sort_key = clock.sort_key()
        session.add(charge)
        loaded.charges.remove(charge)
        loaded.charges.append(charge)
    return loaded


def _paid_so_far(loaded: Loaded) -> Decimal:
    """Approved funds in the intent's currency, each at the rate quoted to the payer."""
    return sum((c.amount_captured * c.exchange_rate for c in loaded.charges), Decimal(0))


async def open_crypto(session: AsyncSession, env: Env, loaded: Loaded, asset_id: str) -> Loaded:
    intent = loaded.intent
    now = now_of(session)
    check_open(loaded, now)
    asset_id = asset_id or intent.permanent_deposit_asset_id
    if not asset_id:
        raise MissingParameter(ASSET_FIELD)
    asset = payable_asset(env, asset_id, intent.livemode)
    if intent.paid_asset_id and asset.id != intent.paid_asset_id:
        raise invalid(ASSET_FIELD, f"funds already arrived in {intent.paid_asset_id}; pay the rest in that asset")
    if intent.permanent_deposit and intent.permanent_deposit_asset_id and asset.id != intent.permanent_deposit_asset_id:
        raise invalid(ASSET_FIELD, f"this intent pays to its permanent deposit in {intent.permanent_deposit_asset_id}")
    standing = open_charge(loaded, asset.id, now)
    if standing is not None:
        return _make_current(session, loaded, standing)  # same address, same quote
    if len(loaded.charges) >= env.settings.max_charges_per_intent:
        raise TooManyAttempts(intent.status, env.settings.max_charges_per_intent)
    currency = env.catalogue.currency(intent.currency)
    due = intent.amount - _paid_so_far(loaded)
    if currency is None or due <= 0:
        raise UnexpectedState(intent.status, "open_a_payment_attempt")
    try:
        q = await quote(env.rates, asset, currency, due, now, seconds=env.settings.quote_seconds)
    except RateUnavailable as e:
        raise invalid(ASSET_FIELD, f"{e}; choose another asset") from None
    deposit: PermanentDeposit | None = None
    if intent.permanent_deposit and intent.customer_id:
        deposit = await permanent_deposit(session, env, intent.merchant_id, intent.livemode, intent.customer_id, asset)
        address, index = deposit.address, deposit.address_index
    else:
        address, index = await new_deposit_address(session, env.keys, key_scheme(env.catalogue.networks[asset.network]),
                                                    intent.merchant_id, intent.livemode)
    charge = Charge(id=new_id("ch"), payment_intent_id=intent.id, merchant_id=intent.merchant_id,
                    livemode=intent.livemode, payment_method_type=CRYPTO, asset_id=asset.id, network=asset.network,
                    amount=q.amount, exchange_rate=q.exchange_rate, deposit_address=address, address_index=index,
                    permanent_deposit_id=deposit.id if deposit else None, quote_expires_at=q.expires_at,
                    quote_grace_seconds=env.settings.quote_grace_seconds, status=ChargeStatus.PENDING, created=now)
    session.add(charge)
    await session.flush()
    await watch(session, network=asset.network, address=address, owner_id=deposit.id if deposit else charge.id,
                merchant_id=intent.merchant_id, livemode=intent.livemode,
                until=max(q.expires_at, intent.expired_at) + WATCH_GRACE_SECONDS)
    intent.payment_method_type = CRYPTO
    intent.updated = now
    session.add(intent)
    loaded.charges.append(charge)
    loaded.transfers[charge.id] = []
    return loaded


async def permanent_deposit(session: AsyncSession, env: Env, merchant_id: str, livemode: bool, customer_id: str,
                            asset: Asset) -> PermanentDeposit:
    """The customer's reusable address for this asset, made on first use."""
    row = (await session.exec(select(PermanentDeposit).where(
        PermanentDeposit.merchant_id == merchant_id, PermanentDeposit.livemode == livemode,
        PermanentDeposit.customer_id == customer_id, PermanentDeposit.asset_id == asset.id))).first()
    if row is not None:
        return row
    address, index = await new_deposit_address(session, env.keys, key_scheme(env.catalogue.networks[asset.network]),
                                                merchant_id, livemode)
    row = PermanentDeposit(id=new_id("pd"), merchant_id=merchant_id, livemode=livemode, customer_id=customer_id,
                           asset_id=asset.id, network=asset.network, address=address, address_index=index,
                           created=now_of(session))
    session.add(row)
    await session.flush()
    return row


async def watch(session: AsyncSession, *, network: str, address: str, owner_id: str, merchant_id: str,
                livemode: bool, until: int) -> None:
    """Ask the watcher to look for transfers to `address` until `until` (extended, never shortened)."""
    row = await session.get(WatchedAddress, (network, address))
    if row is not None:
        row.watch_until = max(row.watch_until, until)
        session.add(row)
        return
    cursor = await session.get(NetworkCursor, network)
    # The address is new: nothing before the next unscanned block can be a payment to it.
    session.add(WatchedAddress(network=network, address=address, owner_id=owner_id, merchant_id=merchant_id,
                               livemode=livemode, from_block=cursor.last_block + 1 if cursor else 0,
                               watch_until=until))
    await session.flush()
