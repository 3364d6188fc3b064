"""An intent is paid in one asset (its payment_details are in it). A payer may open attempts in two assets before
any funds arrive and then pay both: what arrives on the attempt in the other asset is the intent's unexpected funds,
shown and refundable in its own asset, never lost from view. On Anvil, SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, transactions, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import PAYER, another_sale, created, finished, fund_treasury

USDT, ETH = "USDT-ETH-TEST", "ETH-ETH-TEST"


def _choose(shop: Shop, intent_id: str, asset_id: str) -> dict[str, Any]:
    chosen = ok(shop.api.post(f"/v1/payment_intents/{intent_id}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": asset_id}}}))
    return chosen["payment_intents"][0]["payment_method_options"]["crypto"]  # type: ignore[no-any-return]


def _paid_in_usdt_then_in_eth(chain: Chain, shop: Shop) -> tuple[dict[str, Any], str, str]:
    """A 10.50 USD intent with a USDT and an ETH attempt opened before paying: 1 USDT, then the whole ETH quote. The
    intent once the ETH transfer is confirmed and screened, its hash, the ETH quoted."""
    intent = ok(shop.api.post("/v1/payment_intents", json={"amount": "10.50", "currency": "USD"}))
    usdt = _choose(shop, intent["id"], USDT)
    eth = _choose(shop, intent["id"], ETH)
    chain.send_token("USDT", PAYER, usdt["deposit_address"], 1_000_000)
    chain.mine(3)
    wait_for(shop.api, intent["id"], lambda i: i["status"] == "PartialPaid")
    sent = chain.send_eth(PAYER, eth["deposit_address"], base_units(eth["amount"], 18))
    chain.mine(3)
    seen = wait_for(shop.api, intent["id"], lambda i: any(
        f["tx_hash"] == sent.tx_hash and f["status"] == "confirmed" and f["aml_status"] == "approved"
        for f in i["unexpected_funds"]) or any(t["tx_hash"] == sent.tx_hash and t["aml_status"] == "approved"
                                               for t in transactions(i)))
    return seen, sent.tx_hash, eth["amount"]


def test_funds_on_an_attempt_in_another_asset_than_the_paid_one_are_unexpected_funds(
        chain: Chain, shop: Shop) -> None:
    intent, tx_hash, quoted = _paid_in_usdt_then_in_eth(chain, shop)
    assert intent["status"] == "PartialPaid"
    assert intent["payment_details"]["amount_captured"] == {"asset_id": USDT, "amount": "1"}
    assert [t["asset_id"] for t in transactions(intent)] == [USDT]
    [funds] = intent["unexpected_funds"]
    assert (funds["asset_id"], Decimal(funds["amount"]), funds["tx_hash"]) == (ETH, Decimal(quoted), tx_hash)


def test_funds_on_an_attempt_in_another_asset_are_refunded_in_that_asset(chain: Chain, shop: Shop) -> None:
    intent, _, quoted = _paid_in_usdt_then_in_eth(chain, shop)
    another_sale(chain, shop, ETH, "3")  # the processing fee on the unexpected funds is not the merchant's to give
    fund_treasury(chain, shop)
    rf = created(shop, intent["id"], quoted, asset_id=ETH)
    assert (rf["amount"], rf["unexpected_funds"]) == ({"asset_id": ETH, "amount": quoted}, True)
    assert finished(chain, shop, rf["id"])["status"] == "Success"
    after = ok(shop.api.get(f"/v1/payment_intents/{intent['id']}"))
    assert after["status"] == "PartialPaid"  # the payment in USDT is untouched
    assert after["payment_details"]["amount_refunded"] == {"asset_id": USDT, "amount": "0"}
