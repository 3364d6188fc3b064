"""A transfer counts toward a charge only in the charge's own asset (DESIGN §14), on a real chain.

1 USDT sent to the deposit address of a charge priced in ETH must not pay it (it once counted as 1 ETH): it is
recorded on the intent as unexpected funds, and no refund can send ETH for it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.paid_on_chain.test_paid_on_chain import PAYER, base_units, open_intent, transactions, wait_for

FUNDER = 6  # funds the merchant's treasury, so a refund is refused for its amount, not for the treasury's balance
ONE_USDT = 1_000_000
ETH_PRICED = "3000"  # USD: a quote of exactly 1 ETH at the default 3000 USD per ETH


def _settled(intent: dict[str, Any], tx_hash: str) -> bool:
    """The transfer is confirmed and screened, whether the intent shows it as unexpected funds or (wrongly) as a
    payment on its charge."""
    funds = [f for f in intent.get("unexpected_funds", []) if f["tx_hash"] == tx_hash]
    paid = [t for t in transactions(intent) if t["tx_hash"] == tx_hash]
    return any(f["status"] == "confirmed" and f["aml_status"] == "approved" for f in funds) or \
        any(t["status"] == "confirmed" and t["aml_status"] == "approved" for t in paid)


def _fund_treasury(chain: Chain, shop: httpx.Client, wei: int) -> None:
    treasury = ok(shop.get("/v1/merchants/me"))["test"]["treasury_address"]
    chain.send_eth(FUNDER, treasury, wei)


def test_usdt_sent_to_an_eth_charge_is_unexpected_funds_not_a_payment(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "ETH-ETH-TEST", ETH_PRICED)
    assert Decimal(quote["amount"]) == 1
    sent = chain.send_token("USDT", PAYER, quote["deposit_address"], ONE_USDT)
    chain.mine(3)
    seen = wait_for(shop, intent_id, lambda i: _settled(i, sent.tx_hash))
    assert seen["status"] == "RequiresPaymentMethod"  # neither Success nor Processing: nothing was paid
    assert seen["payment_intent_status"] != "Completed"
    assert Decimal(seen["payment_details"]["amount_captured"]["amount"]) == 0
    [funds] = seen["unexpected_funds"]
    assert (funds["asset_id"], Decimal(funds["amount"]), funds["tx_hash"]) == ("USDT-ETH-TEST", 1, sent.tx_hash)
    assert funds["source_address"].lower() == chain.accounts[PAYER].address.lower()
    assert transactions(seen) == []  # the ETH charge lists only ETH transfers
    _fund_treasury(chain, shop, 2 * 10**18)
    fails(shop.post("/v1/refunds", json={"payment_intent_id": intent_id, "amount": "1"}), 400,
          "invalid_payment_intent")


def test_a_refund_never_sends_more_eth_than_was_captured_in_eth(chain: Chain, shop: httpx.Client) -> None:
    intent_id, quote = open_intent(shop, "ETH-ETH-TEST", ETH_PRICED)
    eth = chain.send_eth(PAYER, quote["deposit_address"], base_units("0.001", 18))
    usdt = chain.send_token("USDT", PAYER, quote["deposit_address"], ONE_USDT)
    chain.mine(3)
    seen = wait_for(shop, intent_id, lambda i: _settled(i, eth.tx_hash) and _settled(i, usdt.tx_hash)
                    and i["status"] in ("PartialPaid", "Success"))
    assert seen["status"] == "PartialPaid"  # 0.001 ETH of 1 ETH; the USDT is not 1 ETH
    assert Decimal(seen["payment_details"]["amount_captured"]["amount"]) == Decimal("0.001")
    assert [f["tx_hash"] for f in seen["unexpected_funds"]] == [usdt.tx_hash]
    _fund_treasury(chain, shop, 2 * 10**18)
    fails(shop.post("/v1/refunds", json={"payment_intent_id": intent_id, "amount": "1"}), 400,
          "refund_amount_exceeded")
    fails(shop.post("/v1/refunds", json={"payment_intent_id": intent_id, "amount": "0.0011"}), 400,
          "refund_amount_exceeded")
    assert ok(shop.get("/v1/refunds", params={"payment_intent": intent_id}))["refunds"] == []
