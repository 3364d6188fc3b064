"""Small builders of products and payment links for the HTTP end-to-end tests.

The `*_body` functions return plain request bodies a test can still change before sending; the others create
the object through the API and return its `data`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import httpx

from tests.conftest import ok

SIZES = ("XS", "S", "M", "L", "XL", "XXL")


def variant_product_body(prices: Sequence[str] = ("10.00", "12.50", "15"), **fields: Any) -> dict[str, Any]:
    """A product with one option, `Size`, and one variant per price (XS, S, M, … in that order)."""
    sizes = SIZES[: len(prices)]
    return {
        "name": "T-shirt",
        "default_currency": "USD",
        "options": [{"name": "Size", "values": [{"value": s} for s in sizes]}],
        "variants": [{"option_values": {"Size": s}, "price": {"amount": p}}
                     for s, p in zip(sizes, prices, strict=True)],
        **fields,
    }


def fixed_price_body(amount: str = "5.00", **fields: Any) -> dict[str, Any]:
    """A simple product: a fixed price and no options."""
    return {"name": "E-book", "default_currency": "USD", "fixed_price": {"amount": amount}, **fields}


def selling_plan(**fields: Any) -> dict[str, Any]:
    return {
        "name": "Monthly",
        "billing_cycle": "month",
        "billing_cycle_interval": 1,
        "trial_period_days": 7,
        "pricing_policies": [{"policy_type": "FIXED", "after_cycle": 0, "discount_percentage": "10"}],
        **fields,
    }


def create_product(api: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    return ok(api.post("/v1/products", json=body))  # type: ignore[no-any-return]


def variant_product(api: httpx.Client, prices: Sequence[str] = ("10.00", "12.50", "15"),
                    **fields: Any) -> dict[str, Any]:
    return create_product(api, variant_product_body(prices, **fields))


def fixed_price_product(api: httpx.Client, amount: str = "5.00", **fields: Any) -> dict[str, Any]:
    return create_product(api, fixed_price_body(amount, **fields))


def variant_ids(product: dict[str, Any]) -> list[str]:
    return [v["id"] for v in product["variants"]]


def link_body(product: dict[str, Any], *, primary: Sequence[str] | None = None, default: str | None = None,
              **fields: Any) -> dict[str, Any]:
    """A payment link for `product`: by default every variant is primary and the first is the default."""
    primary = list(primary) if primary is not None else variant_ids(product)
    return {"product_id": product["id"], "default_variant_id": default or primary[0],
            "primary_variant_ids": primary, **fields}


def payment_link(api: httpx.Client, product: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    return ok(api.post("/v1/payment_links", json=link_body(product, **kwargs)))  # type: ignore[no-any-return]


def inactive_payment_link(api: httpx.Client, product: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    link = payment_link(api, product, **kwargs)
    ok(api.post(f"/v1/payment_links/{link['id']}", json={"active": False}))
    return link


def next_second() -> None:
    """Sleep into the next whole second, so that a timestamp taken afterwards is strictly later."""
    time.sleep(1.05 - time.time() % 1)
