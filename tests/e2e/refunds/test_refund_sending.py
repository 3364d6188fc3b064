"""Refunds sent on chain by the running scheduler: balances, statuses, events and the intent's status."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import httpx

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import (
    FUNDER,
    PAYER,
    another_sale,
    created,
    events_of,
    fund_treasury,
    paid_intent,
    refund,
    usdt_balance,
    wait_refund,
)


def _succeeded(chain: Chain, shop: Shop, refund_id: str) -> dict:
    return wait_refund(chain, shop, refund_id, lambda r: r["status"] in ("Success", "Failed"))


def test_two_partial_refunds_then_the_rest_pay_the_payer_and_refund_the_intent(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    another_sale(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    payer = chain.accounts[PAYER].address
    before = usdt_balance(chain, payer)
    done = []
    for amount in ("2", "3.5", "5"):
        rf = created(shop, intent["id"], amount)
        done.append(_succeeded(chain, shop, rf["id"]))
        assert done[-1]["status"] == "Success", done[-1]
    assert usdt_balance(chain, payer) - before == sum(int(Decimal(r["net_amount"]["amount"]) * 10**6) for r in done)
    assert [r["net_amount"]["amount"] for r in done] == ["2", "3.5", "5"]  # the token's gas is the merchant's
    tx = done[0]["transactions"][0]
    assert (tx["status"], tx["amount"], tx["decimals"], tx["type"]) == ("confirmed", "2000000", 6, "refund")
    assert tx["source_address"] == shop.treasury.lower() and tx["fee_currency"] == "ETH"
    assert Decimal(tx["fee_info"]) > 0
    final = ok(shop.api.get(f"/v1/payment_intents/{intent['id']}"))
    assert final["status"] == "Refunded", final["payment_details"]
    assert Decimal(final["payment_details"]["amount_refunded"]["amount"]) == Decimal("10.5")


def test_a_refund_records_created_updated_and_succeeded_events_in_order(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)
    rf = created(shop, intent["id"], "1")
    _succeeded(chain, shop, rf["id"])
    events = events_of(shop, rf["id"])
    assert [e["type"] for e in events] == ["refund.created", "refund.updated", "refund.updated", "refund.succeeded"]
    assert [e["data"]["object"]["status"] for e in events] == ["Pending", "Processing", "Success", "Success"]
    assert set(events[-1]["data"]["object"]["transactions"][0]) >= {"tx_hash", "status", "amount", "asset_id",
                                                                     "network"}


def test_a_native_eth_refund_pays_the_amount_less_the_network_fee(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop, "ETH-ETH-TEST")
    fund_treasury(chain, shop, wei=10**17)
    payer = chain.accounts[PAYER].address
    before = chain.w3.eth.get_balance(payer)
    rf = _succeeded(chain, shop, created(shop, intent["id"], "0.002")["id"])
    assert rf["status"] == "Success", rf
    fee = Decimal(rf["network_fee"]["amount"])
    assert fee > 0 and Decimal(rf["net_amount"]["amount"]) == Decimal("0.002") - fee
    assert chain.w3.eth.get_balance(payer) - before == int(Decimal(rf["net_amount"]["amount"]) * 10**18)


def test_twenty_concurrent_full_refunds_accept_exactly_one(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    another_sale(chain, shop)
    fund_treasury(chain, shop, usdt=20_000_000)

    def attempt(_: int) -> httpx.Response:
        return refund(shop, intent["id"], "10.5")

    with ThreadPoolExecutor(max_workers=20) as pool:
        codes = sorted(r.json()["error_code"] for r in pool.map(attempt, range(20)))
    assert codes == ["refund_amount_exceeded"] * 19 + ["success"]


def test_a_treasury_without_gas_fails_the_refund_and_frees_its_amount(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop)
    another_sale(chain, shop)
    chain.send_token("USDT", FUNDER, shop.treasury, 20_000_000)  # the token, but no ETH to pay gas with
    rf = _succeeded(chain, shop, created(shop, intent["id"], "10.5")["id"])
    assert (rf["status"], rf["failure_reason"], rf["transactions"]) == ("Failed", "insufficient_funds", [])
    assert [e["type"] for e in events_of(shop, rf["id"])] == ["refund.created", "refund.updated", "refund.failed"]
    assert created(shop, intent["id"], "10.5")["status"] == "Pending"


def test_a_native_refund_deducts_the_gas_its_receipt_says_was_paid(chain: Chain, shop: Shop) -> None:
    intent = paid_intent(chain, shop, "ETH-ETH-TEST")
    fund_treasury(chain, shop, wei=10**17)
    payer = chain.accounts[PAYER].address
    before = chain.w3.eth.get_balance(payer)
    rf = _succeeded(chain, shop, created(shop, intent["id"], "0.002")["id"])
    assert rf["status"] == "Success", rf
    receipt = chain.w3.eth.get_transaction_receipt(rf["transactions"][0]["tx_hash"])
    paid = Decimal(receipt["gasUsed"] * receipt["effectiveGasPrice"]).scaleb(-18)
    assert Decimal(rf["network_fee"]["amount"]) == paid
    assert Decimal(rf["net_amount"]["amount"]) == Decimal("0.002") - paid
    assert chain.w3.eth.get_balance(payer) - before == int(Decimal(rf["net_amount"]["amount"]) * 10**18)
    details = ok(shop.api.get(f"/v1/payment_intents/{intent['id']}"))["payment_details"]
    assert Decimal(details["network_fee"]["amount"]) == paid
