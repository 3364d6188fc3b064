"""Money that reaches a deposit address after its intent ended goes back like any payment (refunds.service.refundable).

An intent refunded in full is Refunded; one canceled or expired is Canceled. Funds sent to its deposit address
afterwards are captured and credited to the merchant, so a refund of them must be possible, and only of them.
"""

from __future__ import annotations

from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent, transactions, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import (
    PAYER,
    another_sale,
    created,
    finished,
    fund_treasury,
    paid_intent,
    refund,
    usdt_balance,
)

USDT = "USDT-ETH-TEST"
TOP_UP = 2_000_000  # 2 USDT


def _deposit_address(intent: dict[str, Any]) -> str:
    return str(intent["charges"][0]["payment_method_options"]["crypto"]["deposit_address"])


def _confirmed(intent: dict[str, Any], tx_hash: str) -> bool:
    return any(t["tx_hash"] == tx_hash and t["status"] == "confirmed" and t["aml_status"] == "approved"
               for t in transactions(intent))


def _refunded_in_full(chain: Chain, shop: Shop) -> dict[str, Any]:
    intent = paid_intent(chain, shop, USDT, "10.50")
    another_sale(chain, shop)  # the 1 % fee paygate kept on the intent is not the merchant's to give back
    fund_treasury(chain, shop, usdt=30_000_000)
    assert finished(chain, shop, created(shop, intent["id"], "10.5")["id"])["status"] == "Success"
    return wait_for(shop.api, intent["id"], lambda i: i["status"] == "Refunded")


def _topped_up(chain: Chain, shop: Shop, intent: dict[str, Any]) -> dict[str, Any]:
    sent = chain.send_token("USDT", PAYER, _deposit_address(intent), TOP_UP)
    chain.mine(3)
    return wait_for(shop.api, intent["id"], lambda i: _confirmed(i, sent.tx_hash))


def test_a_top_up_after_a_full_refund_goes_back_to_its_sender(chain: Chain, shop: Shop) -> None:
    intent = _topped_up(chain, shop, _refunded_in_full(chain, shop))
    before = usdt_balance(chain, chain.accounts[PAYER].address)
    rf = finished(chain, shop, created(shop, intent["id"], "2")["id"])
    assert rf["status"] == "Success"
    assert usdt_balance(chain, chain.accounts[PAYER].address) - before == TOP_UP
    assert ok(shop.api.get(f"/v1/payment_intents/{intent['id']}"))["status"] == "Refunded"


def test_a_top_up_after_a_full_refund_is_refunded_no_more_than_once(chain: Chain, shop: Shop) -> None:
    intent = _topped_up(chain, shop, _refunded_in_full(chain, shop))
    answer = refund(shop, intent["id"], "2.000001")
    assert answer.status_code == 400 and answer.json()["error_code"] == "refund_amount_exceeded"
    finished(chain, shop, created(shop, intent["id"], "2")["id"])
    again = refund(shop, intent["id"], "0.01")
    assert again.status_code == 400 and again.json()["error_code"] == "invalid_payment_intent"


def test_an_intent_refunded_in_full_with_nothing_more_cannot_be_refunded(chain: Chain, shop: Shop) -> None:
    intent = _refunded_in_full(chain, shop)
    answer = refund(shop, intent["id"], "0.01")
    assert answer.status_code == 400 and answer.json()["error_code"] == "invalid_payment_intent"


def test_funds_that_arrive_after_an_intent_expired_go_back_to_their_sender(chain: Chain, shop: Shop) -> None:
    intent_id, quote = open_intent(shop.api, USDT, "10.50", expires_in=2)
    wait_for(shop.api, intent_id, lambda i: i["status"] == "Canceled")
    another_sale(chain, shop)
    fund_treasury(chain, shop, usdt=30_000_000)
    sent = chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    chain.mine(3)
    late = wait_for(shop.api, intent_id, lambda i: _confirmed(i, sent.tx_hash))
    assert late["status"] == "Canceled"
    before = usdt_balance(chain, chain.accounts[PAYER].address)
    rf = finished(chain, shop, created(shop, intent_id, quote["amount"])["id"])
    assert rf["status"] == "Success"
    assert usdt_balance(chain, chain.accounts[PAYER].address) - before == base_units(quote["amount"],
                                                                                     quote["decimals"])
    assert ok(shop.api.get(f"/v1/payment_intents/{intent_id}"))["status"] == "Canceled"


def test_an_expired_intent_that_received_nothing_cannot_be_refunded(shop: Shop) -> None:
    intent_id, _ = open_intent(shop.api, USDT, "10.50", expires_in=2)
    wait_for(shop.api, intent_id, lambda i: i["status"] == "Canceled")
    answer = refund(shop, intent_id, "1")
    assert answer.status_code == 400 and answer.json()["error_code"] == "invalid_payment_intent"
