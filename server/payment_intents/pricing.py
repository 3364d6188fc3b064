"""Pricing a payment link purchase from the link's variants: the primary variant times its quantity plus add-ons.

The result is kept on the intent as a snapshot (what was bought, at which price), shown as payment_link_details.
Its items are also what the intent holds of tracked stock while it is open, and takes from it when it succeeds
(server/products/stock.py): pricing refuses more than is left once the units open checkouts hold are counted, and
more than one shopper may hold of a variant at once (`max_held_units_per_shopper`, DESIGN §16).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from paygate.v1 import payment_intents_pb2 as pb
from sqlmodel.ext.asyncio.session import AsyncSession

from server import money
from server.catalogue.catalogue import Catalogue
from server.config import Settings
from server.context import Caller, client_ip
from server.errors import invalid
from server.payment_links import service as links
from server.products import stock
from server.products.availability import Shortfall, left, shortfall
from server.products.models import Product, ProductVariant, SellingPlan
from server.selling_plans import membership
from server.subscriptions.pricing import Policy, cycle_price
from server.validate import money_text

MAX_QUANTITY = 10_000

MAX_TOTAL = Decimal(10) ** money.MAX_INTEGER_DIGITS  # an intent's amount has at most 18 integer digits (DESIGN §14)


@dataclass(frozen=True)
class Priced:
    amount: Decimal
    currency: str
    snapshot: dict[str, Any]
    product_version: int
    # A subscription purchase: the selling plan, the variant and its quantity (the first cycle's price is in amount).
    plan: SellingPlan | None = None
    variant: ProductVariant | None = None
    quantity: int = 1
    # The address bucket of the shopper's client that made the purchase; "" when the merchant's server did.
    shopper_ip: str = ""


def _title(variant: ProductVariant, product_name: str) -> str:
    return " / ".join(str(v) for v in variant.option_values.values()) or product_name


def _item(variant: ProductVariant, title: str, quantity: int, *, primary: bool, plan: str = "") -> dict[str, Any]:
    return {"variant_id": variant.id, "variant_title": title, "quantity": quantity,
            "price": money_text(variant.price), "currency": variant.currency, "selling_plan_id": plan,
            "is_primary": primary}


def _refuse_unsellable(product: Product, variant: ProductVariant, quantity: int, where: str, held: int = 0) -> None:
    """Refuses what the hosted page shows unavailable (the same rule), naming the field the buyer can change.
    `held`: the units of the variant open checkouts hold, not for sale."""
    match shortfall(product, variant, quantity, held):
        case None:
            return
        case Shortfall.ARCHIVED:
            # Nothing the buyer picks can help: the link itself sells nothing any more.
            raise invalid("payment_link_id", f"the product {product.id} is archived: the link sells nothing now")
        case Shortfall.INACTIVE:
            raise invalid(f"{where}.variant_id", "this variant is no longer sold")
        case Shortfall.SOLD_OUT:
            # Held units come back if their checkouts end unpaid: worth saying, so the buyer may try again later.
            raise invalid(f"{where}.variant_id", "this variant is sold out" +
                          (" (the last units are held by payments in progress)" if held else ""))
        case Shortfall.TOO_FEW:
            raise invalid(f"{where}.quantity", f"only {left(variant, held)} left in stock")


def shopper_ip(caller: Caller) -> str:
    """The address bucket of the client making a purchase when that client is the shopper's own (the hosted page,
    a public key); "" for the merchant's server (its secret key), which makes purchases for all its shoppers from
    one address. Cut to the column's length: a local socket's peer name can be longer than any address."""
    if caller.key_kind == "secret":
        return ""
    shopper = stock.shopper_of(None, client_ip.get())
    return shopper.ip[:100] if shopper else ""


async def _refuse_held(session: AsyncSession, settings: Settings, product: Product,
                       variants: dict[str, ProductVariant], items: list[dict[str, Any]], wheres: dict[str, str],
                       shopper: stock.Shopper | None) -> None:
    """The items again, against the stock as it is now less what open checkouts hold, the tracked variants' rows
    locked until this purchase's intent is committed: of two checkouts for the last unit, one is refused. Then
    against what the shopper holds already, under the same locks: no shopper holds more than
    `max_held_units_per_shopper` of a tracked variant at once (untracked ones are never held)."""
    bought = [(variants[i["variant_id"]], int(i["quantity"])) for i in items]
    hold = settings.checkout_hold_seconds
    held = await stock.lock_and_count_held(session, [v for v, _ in bought], hold_seconds=hold)
    for v, quantity in bought:
        _refuse_unsellable(product, v, quantity, wheres[v.id], held[v.id])
    tracked = [(v, quantity) for v, quantity in bought if v.inventory_quantity is not None]
    if shopper is None or not tracked:
        return
    mine = await stock.held(session, [v.id for v, _ in tracked], hold_seconds=hold, shopper=shopper)
    cap = settings.max_held_units_per_shopper
    for v, quantity in tracked:
        if mine[v.id] + quantity > cap:
            already = f"; {mine[v.id]} are held by your open checkouts already" if mine[v.id] else ""
            raise invalid(f"{wheres[v.id]}.quantity",
                          f"one shopper may hold at most {cap} of this variant at once{already}")


def decimals_of(catalogue: Catalogue, code: str) -> int:
    """Minor-unit digits of a pricing currency (a fiat code or an asset id); 2 when the catalogue does not say."""
    currency = catalogue.currency(code)
    return currency.decimals if currency else 2


async def price_link(session: AsyncSession, caller: Caller, request: pb.CreatePaymentIntentRequest,
                     catalogue: Catalogue, settings: Settings) -> Priced:
    row = await links.find(session, caller, request.payment_link_id)
    if row is None:
        raise invalid("payment_link_id", "no such payment link")
    if not row.active:
        raise invalid("payment_link_id", "the payment link is not active")
    link = await links.get(session, caller, row.id)
    product = link.product
    if request.HasField("product_version") and request.product_version != product.version:
        raise invalid("product_version", f"the product changed since (now version {product.version}); reload it")
    primary_ids = [i.variant_id for i in link.items if i.kind == "primary"]
    addons = {i.variant_id: i for i in link.items if i.kind == "addon"}
    choice = request.primary_variant
    variant_id = choice.variant_id or link.link.default_variant_id
    if variant_id not in primary_ids:
        raise invalid("primary_variant.variant_id", f"{variant_id!r} is not a primary variant of the payment link")
    quantity = choice.quantity if choice.HasField("quantity") else 1
    if not 1 <= quantity <= MAX_QUANTITY:
        raise invalid("primary_variant.quantity", f"must be from 1 to {MAX_QUANTITY}")
    variant = link.variants[variant_id]
    _refuse_unsellable(product, variant, quantity, "primary_variant")
    plan: SellingPlan | None = None
    total = variant.price * quantity
    if choice.selling_plan_id:
        plan = await membership.plan_of_product(session, choice.selling_plan_id, product.id)
        if plan is None:
            raise invalid("primary_variant.selling_plan_id", "not a selling plan of the product")
        if not await membership.takes_subscribers(session, plan):
            raise invalid("primary_variant.selling_plan_id", f"selling plan {plan.id} is disabled: it takes no new "
                                                             "subscribers")
        # The first cycle's price: the plan's tier for cycle 1 (server/subscriptions/pricing.py); nothing during a
        # free trial (the first paid cycle starts when it ends, DESIGN §8).
        policies = [Policy.of(p) for p in plan.pricing_policies]
        total = Decimal(0) if plan.trial_period_days > 0 else \
            cycle_price(variant.price, quantity, policies, 1, decimals_of(catalogue, variant.currency))
    items = [_item(variant, _title(variant, product.name), quantity, primary=True, plan=choice.selling_plan_id)]
    chosen: dict[str, int] = {}
    wheres = {variant.id: "primary_variant"}
    for i, addon in enumerate(request.addons):
        where = f"addons[{i}]"
        spec = addons.get(addon.variant_id)
        if spec is None:
            raise invalid(f"{where}.variant_id", f"{addon.variant_id!r} is not an add-on of the payment link")
        if addon.variant_id in chosen:
            raise invalid(f"{where}.variant_id", "each add-on may appear once")
        if not spec.min_quantity <= addon.quantity <= spec.max_quantity:
            raise invalid(f"{where}.quantity", f"must be from {spec.min_quantity} to {spec.max_quantity}")
        if addon.quantity:  # an add-on left out (quantity 0) is not bought, so it may be unavailable
            _refuse_unsellable(product, link.variants[addon.variant_id], addon.quantity, where)
        chosen[addon.variant_id] = addon.quantity
        wheres[addon.variant_id] = where
    for vid, spec in addons.items():
        if spec.min_quantity > 0 and vid not in chosen:
            raise invalid("addons", f"add-on {vid} needs a quantity of at least {spec.min_quantity}")
    for vid, qty in chosen.items():
        if qty:
            addon_variant = link.variants[vid]
            items.append(_item(addon_variant, _title(addon_variant, product.name), qty, primary=False))
            total += addon_variant.price * qty
    if total >= MAX_TOTAL:
        raise invalid("primary_variant.quantity", f"the total {money_text(total)} exceeds {MAX_TOTAL - 1}")
    ip = shopper_ip(caller)
    await _refuse_held(session, settings, product, link.variants, items, wheres,
                       stock.shopper_of(request.customer.strip() or None, ip))
    snapshot = {"payment_link_id": row.id, "total": money_text(total), "currency": variant.currency,
                "product": {"id": product.id, "name": product.name, "description": product.description,
                            "active": product.active},
                "items": items}
    return Priced(total, variant.currency, snapshot, product.version, plan, variant, quantity, ip)
