"""`paygate demo`: a demo merchant with a product and an active payment link, for a first look."""

from __future__ import annotations

from typing import Any

from paygate.v1 import payment_links_pb2, products_pb2
from paygate.v1.money_pb2 import Price

from server.assets.catalogue import load
from server.cli import create_merchant_record
from server.config import Settings
from server.db import Database
from server.payment_links import service as links
from server.payment_links.convert import url_of
from server.products import service as products
from server.rpc.context import Caller


async def seed(settings: Settings) -> dict[str, Any]:
    merchant = await create_merchant_record(settings, "Demo Coffee Roasters")
    caller = Caller(merchant["merchant_id"], livemode=False, key_kind="secret")
    db = Database(settings.database_url)
    try:
        async with db.transaction() as session:
            product = await products.create(session, caller, load(settings.networks_file, settings.providers),
                                            products_pb2.CreateProductRequest(
                name="House blend", description="Freshly roasted beans", default_currency="USD",
                options=[products_pb2.ProductOption(name="Size", values=[
                    products_pb2.OptionValue(value="250g"), products_pb2.OptionValue(value="1kg")])],
                variants=[products_pb2.Variant(option_values={"Size": "250g"}, price=Price(amount="9.50")),
                          products_pb2.Variant(option_values={"Size": "1kg"}, price=Price(amount="32.00"))],
                selling_plans=[products_pb2.SellingPlan(name="Monthly delivery",
                                                        billing_cycle=products_pb2.BILLING_CYCLE_MONTH)],
            ))
            variant_ids = [v.id for v in product.variants]
            link = await links.create(session, caller, payment_links_pb2.CreatePaymentLinkRequest(
                product_id=product.product.id, default_variant_id=variant_ids[0], primary_variant_ids=variant_ids))
    finally:
        await db.close()
    return {**merchant, "product_id": product.product.id,
            "payment_link": {"id": link.link.id, "url": url_of(settings.checkout_base, link.link.id)}}
