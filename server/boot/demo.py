"""`paygate demo`: a demo merchant with a product and an active payment link, for a first look."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
from paygate.v1 import payment_links_pb2, products_pb2
from paygate.v1.money_pb2 import VariantPrice

from server.boot.cli import create_merchant_record, set_card_provider
from server.boot.startup import runtime
from server.config import Settings
from server.context import Caller
from server.payment_links import service as links
from server.payment_links.convert import url_of
from server.products import service as products
from server.tls import client_context


async def seed(settings: Settings) -> dict[str, Any]:
    merchant = await create_merchant_record(settings, "Demo Coffee Roasters")
    caller = Caller(merchant["merchant_id"], livemode=False, key_kind="secret")
    rt = runtime(settings)
    try:
        async with rt.db.transaction() as session:
            product = await products.create(session, caller, rt.catalogue,
                                            products_pb2.CreateProductRequest(
                name="House blend", description="Freshly roasted beans", default_currency="USD",
                options=[products_pb2.ProductOption(name="Size", values=[
                    products_pb2.OptionValue(value="250g"), products_pb2.OptionValue(value="1kg")])],
                variants=[products_pb2.Variant(option_values={"Size": "250g"}, price=VariantPrice(amount="9.50")),
                          products_pb2.Variant(option_values={"Size": "1kg"}, price=VariantPrice(amount="32.00"))],
                selling_plans=[products_pb2.SellingPlan(name="Monthly delivery",
                                                        billing_cycle=products_pb2.BILLING_CYCLE_MONTH)],
            ))
            variant_ids = [v.id for v in product.variants]
            link = await links.create(session, caller, payment_links_pb2.CreatePaymentLinkRequest(
                product_id=product.product.id, default_variant_id=variant_ids[0], primary_variant_ids=variant_ids))
    finally:
        await rt.db.close()
    out = {**merchant, "product_id": product.product.id,
           "payment_link": {"id": link.link.id, "url": url_of(settings.checkout_base, link.link.id)}}
    if settings.provider_a_api_base:
        out["provider_a"] = await _demo_cards(settings, merchant["merchant_id"])
    return out


async def _demo_cards(settings: Settings, merchant_id: str) -> dict[str, str]:
    """Cards out of the box in `make run`: the demo merchant gets provider_a test keys for the local stand-in
    (localstripe accepts any `sk_test_...`), and localstripe is told where to send its signed webhooks."""
    keys = {"secret_key": f"sk_test_demo{secrets.token_hex(12)}",
            "publishable_key": f"pk_test_demo{secrets.token_hex(12)}",
            "webhook_secret": f"whsec_demo{secrets.token_hex(16)}"}
    await set_card_provider(settings, merchant_id, False, keys["secret_key"], keys["publishable_key"],
                            keys["webhook_secret"])
    webhook_url = f"http://{settings.http_addr}/webhooks/provider_a/{merchant_id}"
    try:  # localstripe's own configuration call; a real provider is configured in its dashboard instead
        async with httpx.AsyncClient(timeout=5, verify=client_context()) as client:
            await client.post(f"{settings.provider_a_api_base}/_config/webhooks/paygate-demo",
                              data={"url": webhook_url, "secret": keys["webhook_secret"]})
    except httpx.HTTPError:
        pass
    return {"publishable_key": keys["publishable_key"], "webhook_url": webhook_url,
            "stripe_js": f"{settings.provider_a_api_base}/js.stripe.com/v3/"}
