"""Stock of tracked variants: what open checkouts hold, and what a sale takes.

A variant with an `inventory_quantity` is tracked; one without is never limited and never counted.

* **Held:** a payment intent created from a payment link holds the tracked units it bought (its `link_snapshot`
  items) while money may be on its way to it: Processing (money moving) until it is decided; PartialPaid (the rest
  may follow) until its `expired_at`; RequiresPaymentMethod until its `expired_at` while a card payment is under way
  at the provider (a card submitted, 3-D Secure open), and otherwise, unpaid, only for `checkout_hold_seconds`
  after it was made (DESIGN §16; 900 s by default, where the intent itself stays payable for a day). Past its
  expiry the intent takes no new attempt, so its units are for sale again, partly paid or not (what it received
  stays refundable); a payment already under way keeps them until it is decided. Nothing is written to hold them:
  what is held is derived from the intent rows each time, so a hold cannot leak (a crash between two writes cannot
  leave one behind) and ends by itself when its intent is canceled, its hold or expiry passes or it is refunded
  while partially paid. It is read from the intent's own snapshot, not through its link, so deleting the link
  ends no hold. A shopper who edits their order on the hosted page replaces their own checkout, which ends its hold
  if nothing was paid to it yet (server/checkout/service.py). Units left to sell = `inventory_quantity` - held.
  Pricing a new link purchase locks the tracked variants' rows first (`lock_and_count_held`), so two checkouts for
  the last unit are decided one after the other: the second is refused (400 naming the field), and a refused
  request changes nothing.
* **The hold counts from the checkout's creation**, not from its latest payment attempt: the merchant's "a checkout
  holds stock for 15 minutes" is a timer started when the shopper started checking out, as in the established
  shops, and an unpaid checkout holds for at most that long (DESIGN §16: "at most"). Counting from each attempt
  would let one checkout keep the units for as many holds as it may open attempts. A shopper who pays in time is
  covered by the rule above: a transfer seen or a card submitted is money on its way, and holds however late it
  comes. One who pays after the hold lapsed still buys (see "never refused"): their intent is open and payable
  until its expiry, so if the units were sold to someone else meanwhile the sale is taken all the same, the stock
  stops at 0 and the shortfall is logged for the merchant to restock or refund.
* **Per shopper:** one shopper holds at most `max_held_units_per_shopper` units of a variant at once (DESIGN §16,
  checked by pricing, server/payment_intents/pricing.py). The shopper of a purchase is its customer when it has
  one (from any address), else the client address that made it (`shopper_ip`: IPv6 by its /64, the rate limiter's
  bucket) when the shopper's own client made it (the hosted page, a public key); a purchase the merchant's server
  made with its secret key for no customer belongs to no shopper, since that server speaks for all of them.
  The purchase that would make its shopper hold more is refused (400 naming the quantity), nothing created.
* **Sold:** when the intent succeeds (`settle.move`, in the transaction of the success), `consume` takes its units
  out of `inventory_quantity`, under the same row locks; the hold ends with the open status in that same commit.
  The success is entered once per intent (no transition leads back to it), so a sale consumes stock exactly once.
* **Never refused:** money is never turned away. A sale that finds less stock than it bought (the merchant lowered
  `inventory_quantity` meanwhile, or the units of a checkout whose hold lapsed were sold to another shopper) still
  succeeds: the stock stops at 0, never below, and the shortfall is logged.
  Funds that arrive after the intent was canceled or expired leave it Canceled (`amount_received_late`, refundable):
  no sale, no stock taken, since the unit may have been sold to someone else since.
* **Not restocked:** a refund puts nothing back; the merchant restocks by updating the variant. Subscription
  renewals take nothing either: only the purchase through the link (its first intent) does.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.payment_intents import methods
from server.payment_intents.models import Charge, PaymentIntent
from server.payment_intents.states import Status
from server.products.models import ProductVariant
from server.ratelimit.client_ip import bucket_of

log = logging.getLogger("paygate.products")

# The intent statuses in which a purchase may still hold its units (see `_holding` for how long).
HOLDING = (Status.REQUIRES_PAYMENT_METHOD, Status.PARTIAL_PAID, Status.PROCESSING)


@dataclass(frozen=True)
class Shopper:
    """Who a purchase's units are held for, for the per-shopper cap: a customer, else a client address bucket."""

    customer_id: str = ""
    ip: str = ""

    def purchases(self) -> sa.ColumnElement[bool]:
        if self.customer_id:
            return col(PaymentIntent.customer_id) == self.customer_id
        return col(PaymentIntent.customer_id).is_(None) & (col(PaymentIntent.shopper_ip) == self.ip)


def shopper_of(customer_id: str | None, client_ip: str) -> Shopper | None:
    """The shopper of a purchase for `customer_id` made from `client_ip` ("" when the merchant's server made it):
    None when there is neither, a purchase that is nobody's in particular."""
    if customer_id:
        return Shopper(customer_id=customer_id)
    return Shopper(ip=bucket_of(client_ip)) if client_ip else None


def _attempt_under_way() -> sa.ColumnElement[bool]:
    """The intent (of the enclosing query) has a payment attempt under way that holds its units until it expires,
    as its method says (methods.py `PaymentMethod.holding`): a card payment the payer submitted a card to, not
    decided yet."""
    holding = [h for method in methods.registered().values() if (h := method.holding()) is not None]
    if not holding:
        return sa.false()
    return sa.exists().where(col(Charge.payment_intent_id) == col(PaymentIntent.id), sa.or_(*holding))


def _holding(now: int, hold_seconds: int) -> sa.ColumnElement[bool]:
    """Purchases whose units are held at `now` (see the module's "Held"): Processing ones; until expiry PartialPaid
    ones and unpaid ones with a card payment under way; other unpaid ones `hold_seconds` after their creation."""
    status, open_ = col(PaymentIntent.status), col(PaymentIntent.expired_at) > now
    in_hold = col(PaymentIntent.created) > now - hold_seconds
    return status.in_(HOLDING) & ((status == Status.PROCESSING) | (open_ & (
        (status == Status.PARTIAL_PAID) | in_hold | _attempt_under_way())))


def bought(snapshot: Mapping[str, Any] | None) -> Counter[str]:
    """Units per variant of a payment link purchase, from the intent's `link_snapshot` (empty for other intents)."""
    units: Counter[str] = Counter()
    for item in (snapshot or {}).get("items", ()):
        units[str(item["variant_id"])] += int(item["quantity"])
    return units


async def _lock_tracked(session: AsyncSession, variant_ids: Iterable[str]) -> dict[str, ProductVariant]:
    """The tracked ones of the variants, their rows locked until the end of the transaction (PostgreSQL; SQLite has
    a single writer already) and read again: the stock may have changed since they were loaded. Locked in id order,
    the order in which a product update's flush writes them too, so that two transactions never wait on each other
    for these rows."""
    rows = await session.exec(
        select(ProductVariant).where(col(ProductVariant.id).in_(sorted(set(variant_ids))))
        .order_by(col(ProductVariant.id)).with_for_update().execution_options(populate_existing=True))
    return {row.id: row for row in rows if row.inventory_quantity is not None}


async def held(session: AsyncSession, variant_ids: Iterable[str], *, hold_seconds: int,
               shopper: Shopper | None = None) -> Counter[str]:
    """Units of the variants held by open payment link purchases (of `shopper`'s only, when given): the open
    intents of the variants' products (`link_product_id`, set from the snapshot when the purchase is made, on its
    index with the status: only those purchases are read, never every open intent), their snapshot's items counted
    here. Not through the links' items, which go when a link is deleted while its purchases may still be paid.
    `hold_seconds`: settings.checkout_hold_seconds."""
    wanted = set(variant_ids)
    if not wanted:
        return Counter()
    products = select(ProductVariant.product_id).where(col(ProductVariant.id).in_(sorted(wanted)))
    where = [col(PaymentIntent.link_product_id).in_(products), _holding(now_of(session), hold_seconds)]
    if shopper is not None:
        where.append(shopper.purchases())
    snapshots = await session.exec(select(PaymentIntent.link_snapshot).where(*where))
    out: Counter[str] = Counter()
    for snapshot in snapshots:
        out.update({vid: n for vid, n in bought(snapshot).items() if vid in wanted})
    return out


async def lock_and_count_held(session: AsyncSession, variants: Iterable[ProductVariant], *,
                              hold_seconds: int) -> Counter[str]:
    """Before selling `variants`: the tracked ones locked and read again (see `_lock_tracked`; the rows given are
    refreshed), and the units open purchases hold of each. Untracked variants are neither locked nor counted:
    nothing limits them. While the locks are held, what one shopper holds of them (`held(…, shopper=…)`) cannot
    change either: their two checkouts at once are counted one after the other."""
    tracked = [v.id for v in variants if v.inventory_quantity is not None]
    if not tracked:
        return Counter()
    return await held(session, await _lock_tracked(session, tracked), hold_seconds=hold_seconds)


async def consume(session: AsyncSession, intent: PaymentIntent) -> None:
    """The sale of a succeeded intent: its tracked units leave the stock, which never goes below 0."""
    units = bought(intent.link_snapshot)
    if not units:
        return
    for vid, row in (await _lock_tracked(session, units)).items():
        left, taken = row.inventory_quantity or 0, units[vid]
        # Relative to the row as it is now, not to what was read: right even where the lock above locks nothing.
        level = col(ProductVariant.inventory_quantity)
        await session.exec(sa.update(ProductVariant).where(col(ProductVariant.id) == vid, level.is_not(None))
                           .values(inventory_quantity=sa.case((level > taken, level - taken), else_=0))
                           .execution_options(synchronize_session=False))
        set_committed_value(row, "inventory_quantity", max(left - taken, 0))  # the loaded row says the same
        if taken > left:
            log.warning("sold beyond the stock left", extra={
                "payment_intent": intent.id, "variant": vid, "bought": taken, "stock_left": left})
