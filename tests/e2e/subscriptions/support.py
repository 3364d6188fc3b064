"""Building a subscription the way a shopper does: a product with selling plans, a payment link, an intent for a
plan paid on chain; and paying later invoices from the e-mailed link."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.subscriptions.conftest import Inbox

PAYER = 2
WAIT_SECONDS = 60
DAY = 86_400


def club(shop: httpx.Client) -> dict[str, Any]:
    """A coffee club: 250g at 10.00 and 1kg at 20.00; monthly and yearly plans, and a monthly one with a trial."""
    product = ok(shop.post("/v1/products", json={
        "name": "House blend", "default_currency": "USD",
        "options": [{"name": "Size", "values": [{"value": "250g"}, {"value": "1kg"}]}],
        "variants": [{"option_values": {"Size": "250g"}, "price": {"amount": "10.00"}},
                     {"option_values": {"Size": "1kg"}, "price": {"amount": "20.00"}}],
        "selling_plans": [
            {"name": "Monthly", "billing_cycle": "month", "billing_cycle_interval": 1},
            {"name": "Yearly", "billing_cycle": "year", "billing_cycle_interval": 1,
             "pricing_policies": [{"policy_type": "RECURRING", "after_cycle": 0, "discount_percentage": "20"}]},
            {"name": "Monthly, 14 days free", "billing_cycle": "month", "billing_cycle_interval": 1,
             "trial_period_days": 14},
        ]}))
    link = ok(shop.post("/v1/payment_links", json={
        "product_id": product["id"], "default_variant_id": product["variants"][0]["id"],
        "primary_variant_ids": [v["id"] for v in product["variants"]]}))
    return {"product": product, "link": link, "small": product["variants"][0]["id"],
            "large": product["variants"][1]["id"], "monthly": product["selling_plans"][0]["id"],
            "yearly": product["selling_plans"][1]["id"], "trial": product["selling_plans"][2]["id"]}


def customer(shop: httpx.Client) -> dict[str, Any]:
    address = f"ann-{secrets.token_hex(6)}@example.com"
    return ok(shop.post("/v1/customers", json={"name": "Ann", "email": address}))  # type: ignore[no-any-return]


def wait_for(read: Callable[[], dict[str, Any]], check: Callable[[dict[str, Any]], bool],
             seconds: float = WAIT_SECONDS) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        seen = read()
        if check(seen):
            return seen
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        time.sleep(0.3)


def send_quote(shop: httpx.Client, chain: Chain, intent_id: str) -> None:
    """Choose USDT on the intent and send the quote from a funded account (one block: not confirmed yet)."""
    chosen = ok(shop.post(f"/v1/payment_intents/{intent_id}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": "USDT-ETH-TEST"}}}))
    quote = chosen["payment_intents"][0]["payment_method_options"]["crypto"]
    chain.send_token("USDT", PAYER, quote["deposit_address"], int(Decimal(quote["amount"]).scaleb(quote["decimals"])))


def start_paying(shop: httpx.Client, chain: Chain, intent_id: str) -> dict[str, Any]:
    """`send_quote`, and the intent once the watcher saw the transfer: Processing until `chain.mine(3)`."""
    send_quote(shop, chain, intent_id)
    return wait_for(lambda: ok(shop.get(f"/v1/payment_intents/{intent_id}")), lambda i: i["status"] == "Processing")


def pay(shop: httpx.Client, chain: Chain, intent_id: str) -> dict[str, Any]:
    """Choose USDT on the intent, send the quote from a funded account, confirm it; the intent as Success."""
    send_quote(shop, chain, intent_id)
    chain.mine(3)
    return wait_for(lambda: ok(shop.get(f"/v1/payment_intents/{intent_id}")), lambda i: i["status"] == "Success")


def buy(shop: httpx.Client, c: dict[str, Any], who: dict[str, Any], *, plan: str = "monthly",
        variant: str = "small", quantity: int = 1, **fields: Any) -> dict[str, Any]:
    """The intent of a subscription purchase through the club's payment link (not yet paid)."""
    return ok(shop.post("/v1/payment_intents", json={  # type: ignore[no-any-return]
        "payment_link_id": c["link"]["id"], "customer": who["id"],
        "primary_variant": {"variant_id": c[variant], "selling_plan_id": c[plan], "quantity": quantity}, **fields}))


def subscribe(shop: httpx.Client, chain: Chain, c: dict[str, Any], who: dict[str, Any], **kwargs: Any
              ) -> dict[str, Any]:
    """An active subscription, paid on chain."""
    intent = buy(shop, c, who, **kwargs)
    pay(shop, chain, intent["id"])
    return wait_for(lambda: subscription(shop, intent["subscription"]), lambda s: s["status"] == "active")


def subscription(shop: httpx.Client, sub_id: str) -> dict[str, Any]:
    return ok(shop.get(f"/v1/subscriptions/{sub_id}"))  # type: ignore[no-any-return]


def advance(shop: httpx.Client, sub_id: str, to: int) -> dict[str, Any]:
    return ok(shop.post(f"/v1/subscriptions/{sub_id}/test_clock/advance", json={"to": to}))  # type: ignore[no-any-return]


def renewal_open(shop: httpx.Client, chain: Chain) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(the customer, a monthly subscription paid on chain, its first renewal invoice: open, the period ended)."""
    who = customer(shop)
    sub = subscribe(shop, chain, club(shop), who)
    advance(shop, sub["id"], sub["current_period_end"] + 60)
    return who, sub, invoices(shop, sub["id"])[-1]


def invoices(shop: httpx.Client, sub_id: str) -> list[dict[str, Any]]:
    """The subscription's invoices, oldest first."""
    page = ok(shop.get("/v1/invoices", params={"subscription_id": sub_id, "limit": 100}))
    return list(reversed(page["data"]))


def mailed_intent(inbox: Inbox, address: str, count: int) -> tuple[str, str]:
    """The payment page address in the count-th e-mail to `address`, and the intent id in it."""
    body = inbox.wait_for(address, count)[count - 1].get_payload(decode=True).decode()
    url = re.search(r"https?://\S+/pay/(pi_[0-9A-Za-z]+)\?client_secret=\S+", body)
    assert url, body
    return url.group(0), url.group(1)
