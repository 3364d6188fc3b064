"""Stock of tracked variants: what open checkouts hold, and what a sale takes.

A variant with an `inventory_quantity` is tracked; one without is never limited and never counted.

* **Held:** a payment intent created from a payment link holds the tracked units it bought (its `link_snapshot`
  items) while it is open: Processing (money moving), or RequiresPaymentMethod or PartialPaid until its
  `expired_at`. Past it the intent takes no new attempt, so its units are for sale again, partly paid or not (what
  it received stays refundable); a payment already under way keeps them until it is decided, and a top-up that was
  on its way at expiry still completes the sale (see "never refused"). Nothing is written to hold them: what
  is held is derived from the intent rows each time, so a hold cannot leak (a crash between two writes cannot leave
  one behind) and ends by itself when its intent is canceled, reaches its expiry or is refunded while
  partially paid. It is read from the intent's own snapshot, not through its link, so deleting the link ends no
  hold. A shopper who edits their order on the hosted page replaces their own checkout, which ends its hold if
  nothing was paid to it yet (server/checkout/service.py). Units left to sell = `inventory_quantity` - held.
  Pricing a new link purchase locks the tracked variants' rows first (`lock_and_count_held`), so two checkouts for
  the last unit are decided one after the other: the second is refused (400 naming the field), and a refused
  request changes nothing.
* **Sold:** when the intent succeeds (`settle.move`, in the transaction of the success), `consume` takes its units
  out of `inventory_quantity`, under the same row locks; the hold ends with the open status in that same commit.
  The success is entered once per intent (no transition leads back to it), so a sale consumes stock exactly once.
* **Never refused:** money is never turned away. A sale that finds less stock than it bought (the merchant lowered
  `inventory_quantity` meanwhile) still succeeds: the stock stops at 0, never below, and the shortfall is logged.
  Funds that arrive after the intent was canceled or expired leave it Canceled (`amount_received_late`, refundable):
  no sale, no stock taken, since the unit may have been sold to someone else since.
* **Not restocked:** a refund puts nothing back; the merchant restocks by updating the variant. Subscription
  renewals take nothing either: only the purchase through the link (its first intent) does.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from server.clock import now_of
from server.payment_intents.models import PaymentIntent
from server.payment_intents.states import Status
from server.products.models import ProductVariant

log = logging.getLogger("paygate.products")

# The intent statuses in which a purchase still holds its units: it may yet be paid (the first two until expiry).
HOLDING = (Status.REQUIRES_PAYMENT_METHOD, Status.PARTIAL_PAID, Status.PROCESSING)


def _holding(now: int) -> sa.ColumnElement[bool]:
    status = col(PaymentIntent.status)
    return status.in_(HOLDING) & ((status == Status.PROCESSING) | (col(PaymentIntent.expired_at) > now))


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


async def held(session: AsyncSession, variant_ids: Iterable[str]) -> Counter[str]:
    """Units of the variants held by open payment link purchases: the open intents of the variants' products
    (`link_product_id`, set from the snapshot when the purchase is made, on its index with the status: only those
    purchases are read, never every open intent), their snapshot's items counted here. Not through the links'
    items, which go when a link is deleted while its purchases may still be paid."""
    wanted = set(variant_ids)
    if not wanted:
        return Counter()
    products = select(ProductVariant.product_id).where(col(ProductVariant.id).in_(sorted(wanted)))
    snapshots = await session.exec(
        select(PaymentIntent.link_snapshot).where(col(PaymentIntent.link_product_id).in_(products),
                                                  _holding(now_of(session))))
    out: Counter[str] = Counter()
    for snapshot in snapshots:
        out.update({vid: n for vid, n in bought(snapshot).items() if vid in wanted})
    return out


async def lock_and_count_held(session: AsyncSession, variants: Iterable[ProductVariant]) -> Counter[str]:
    """Before selling `variants`: the tracked ones locked and read again (see `_lock_tracked`; the rows given are
    refreshed), and the units open purchases hold of each. Untracked variants are neither locked nor counted:
    nothing limits them."""
    tracked = [v.id for v in variants if v.inventory_quantity is not None]
    if not tracked:
        return Counter()
    return await held(session, await _lock_tracked(session, tracked))


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
