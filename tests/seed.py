"""One object of each kind a merchant owns, created through the /v1 API: the fuzzer's path ids and the access
sweep's victims. Each factory takes the merchant's test-mode client and returns the new object's `data`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from tests.conftest import ok

WEBHOOK_URL = "https://hooks.example.com/paygate"


def product(api: httpx.Client) -> dict[str, Any]:
    return ok(api.post("/v1/products", json={"name": "Coffee", "default_currency": "USD",  # type: ignore[no-any-return]
                                             "fixed_price": {"amount": "9.50"}}))


def payment_link(api: httpx.Client) -> dict[str, Any]:
    p = product(api)
    variant = p["variants"][0]["id"]
    return ok(api.post("/v1/payment_links", json={  # type: ignore[no-any-return]
        "product_id": p["id"], "default_variant_id": variant, "primary_variant_ids": [variant]}))


def customer(api: httpx.Client) -> dict[str, Any]:
    return ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))  # type: ignore[no-any-return]


def payment_intent(api: httpx.Client) -> dict[str, Any]:
    return ok(api.post("/v1/payment_intents", json={"amount": "10.50", "currency": "USD"}))  # type: ignore[no-any-return]


def webhook_endpoint(api: httpx.Client) -> dict[str, Any]:
    return ok(api.post("/v1/webhook_endpoints", json={  # type: ignore[no-any-return]
        "url": WEBHOOK_URL, "enabled_events": ["*"]}))


def event(api: httpx.Client) -> dict[str, Any]:
    payment_intent(api)  # writes payment_intent.created
    return ok(api.get("/v1/events"))["events"][0]  # type: ignore[no-any-return]


FACTORIES: dict[str, Callable[[httpx.Client], dict[str, Any]]] = {
    "product": product, "payment_link": payment_link, "customer": customer, "payment_intent": payment_intent,
    "webhook_endpoint": webhook_endpoint, "event": event,
}
