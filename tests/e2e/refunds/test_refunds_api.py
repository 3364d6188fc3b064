"""Creating, reading and listing refunds, and every refusal of a refund, on a real chain."""

from __future__ import annotations

from decimal import Decimal

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.paid_on_chain.test_paid_on_chain import open_intent
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import PAYER, another_sale, created, fund_treasury, paid_intent, refund


def test_a_refund_of_a_paid_intent_starts_pending_to_the_payer(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    rf = created(shop, intent["id"], "4", reason="requested_by_customer", metadata={"ticket": "T-1"},
                 description="size")
    assert rf["id"].startswith("rf_") and rf["object"] == "refund"
    assert rf["status"] == "Pending"
    assert rf["amount"] == {"asset_id": "USDT-ETH-TEST", "amount": "4"}
    assert rf["refund_address"] == chain.accounts[PAYER].address.lower()
    assert (rf["reason"], rf["description"], rf["metadata"]) == ("requested_by_customer", "size", {"ticket": "T-1"})
    assert rf["payment_intent"] == intent["id"] and rf["charge"] == intent["charges"][0]["id"]


def test_a_refund_can_be_read_and_listed_by_payment_intent(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    rf = created(shop, intent["id"], "1")
    assert ok(shop.api.get(f"/v1/refunds/{rf['id']}"))["id"] == rf["id"]
    listed = ok(shop.api.get("/v1/refunds", params={"page": 0, "page_size": 10, "payment_intent": intent["id"]}))
    assert [r["id"] for r in listed["refunds"]] == [rf["id"]] and listed["total"] == 1
    assert ok(shop.api.get("/v1/refunds", params={"payment_intent": "pi_other"}))["total"] == 0


def test_an_unknown_refund_is_not_found(shop: Shop) -> None:
    fails(shop.api.get("/v1/refunds/rf_nope"), 404, "refund_not_found")


def test_an_unknown_payment_intent_is_invalid(shop: Shop) -> None:
    fails(refund(shop, "pi_nope", "1"), 400, "invalid_payment_intent")


def test_an_unpaid_payment_intent_is_invalid_with_the_same_message(shop: Shop) -> None:
    intent_id, _ = open_intent(shop.api, "USDT-ETH-TEST")
    unpaid = fails(refund(shop, intent_id, "1"), 400, "invalid_payment_intent")
    assert unpaid["msg"] == fails(refund(shop, "pi_nope", "1"), 400, "invalid_payment_intent")["msg"]


def test_more_than_the_captured_amount_is_refused(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    fails(refund(shop, intent["id"], "10.51"), 400, "refund_amount_exceeded")


def test_refunds_together_never_exceed_the_captured_amount(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    another_sale(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    created(shop, intent["id"], "10")
    fails(refund(shop, intent["id"], "0.51"), 400, "refund_amount_exceeded")
    assert created(shop, intent["id"], "0.5")["status"] == "Pending"


def test_an_empty_treasury_gives_insufficient_funds(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fails(refund(shop, intent["id"], "1"), 400, "insufficient_funds")


def test_an_invalid_refund_address_is_refused(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    fails(refund(shop, intent["id"], "1", refund_address="0x1234"), 400, "parameter_invalid")


def test_an_unknown_reason_is_refused(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fails(refund(shop, intent["id"], "1", reason="bored"), 400, "parameter_invalid")


def test_a_non_positive_amount_is_refused(shop: Shop) -> None:
    fails(refund(shop, "pi_x", "0"), 400, "parameter_invalid")
    fails(refund(shop, "pi_x", "-1"), 400, "parameter_invalid")


def test_a_given_refund_address_is_used(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    to = chain.accounts[5].address
    assert created(shop, intent["id"], "1", refund_address=to)["refund_address"] == to.lower()
    assert Decimal(created(shop, intent["id"], "1")["amount"]["amount"]) == 1
