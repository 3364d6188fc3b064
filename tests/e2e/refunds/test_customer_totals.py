"""Customer totals (DESIGN §12): integers in the minor unit of the customer's currency, moved by every successful
payment and refund; and a charge's refund fields, which follow its refunds."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import PAYER, another_sale, created, finished, fund_treasury

USDT = "USDT-ETH-TEST"


def _customer(shop: Shop) -> dict[str, Any]:
    return ok(shop.api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))  # type: ignore


def _paid_for(chain: Chain, shop: Shop, customer_id: str, amount: str = "10.50") -> dict[str, Any]:
    intent_id, quote = open_intent(shop.api, USDT, amount, customer=customer_id)
    chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    chain.mine(3)
    return wait_for(shop.api, intent_id, lambda i: i["status"] == "Success")


def _totals(shop: Shop, customer_id: str) -> tuple[Any, Any, Any, str]:
    c = ok(shop.api.get(f"/v1/customers/{customer_id}"))
    return c["total_payment"], c["total_refund"], c["total_expense"], c["currency"]


def test_a_new_customer_has_zero_totals_and_no_currency(shop: Shop) -> None:
    customer = _customer(shop)
    assert _totals(shop, customer["id"]) == (0, 0, 0, "")


def test_a_successful_payment_adds_its_amount_in_minor_units(chain: Chain, shop: Shop) -> None:
    customer = _customer(shop)
    _paid_for(chain, shop, customer["id"], "10.50")
    assert _totals(shop, customer["id"]) == (1050, 0, 1050, "USD")
    _paid_for(chain, shop, customer["id"], "2.25")
    assert _totals(shop, customer["id"]) == (1275, 0, 1275, "USD")


def test_a_successful_partial_refund_adds_its_fiat_value_in_minor_units(chain: Chain, shop: Shop) -> None:
    customer = _customer(shop)
    intent = _paid_for(chain, shop, customer["id"], "10.50")
    fund_treasury(chain, shop, usdt=20_000_000)
    rf = created(shop, intent["id"], "2.5")
    assert finished(chain, shop, rf["id"])["status"] == "Success"
    rate = Decimal(intent["charges"][0]["exchange_rate"])
    refunded = int((Decimal("2.5") * rate * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    assert _totals(shop, customer["id"]) == (1050, refunded, 1050 - refunded, "USD")


def test_a_charge_shows_its_refunds(chain: Chain, shop: Shop) -> None:
    customer = _customer(shop)
    intent = _paid_for(chain, shop, customer["id"], "10.50")
    [charge] = intent["charges"]
    assert (charge["refunded"], charge["amount_refunded"]["amount"], charge["refunds"]) == (False, "0", [])
    another_sale(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    rf = created(shop, intent["id"], "2.5")
    assert finished(chain, shop, rf["id"])["status"] == "Success"
    [charge] = ok(shop.api.get(f"/v1/payment_intents/{intent['id']}"))["charges"]
    assert (charge["refunded"], charge["amount_refunded"]) == (False, {"asset_id": USDT, "amount": "2.5"})
    assert [(r["id"], r["status"]) for r in charge["refunds"]] == [(rf["id"], "Success")]
    captured = Decimal(charge["amount_captured"]["amount"])
    rest = created(shop, intent["id"], f"{(captured - Decimal('2.5')).normalize():f}")
    assert finished(chain, shop, rest["id"])["status"] == "Success"
    [charge] = ok(shop.api.get(f"/v1/payment_intents/{intent['id']}"))["charges"]
    assert (charge["refunded"], charge["amount_refunded"]["amount"]) == (True, f"{captured.normalize():f}")
    assert {r["id"] for r in charge["refunds"]} == {rf["id"], rest["id"]}
