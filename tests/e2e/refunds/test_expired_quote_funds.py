"""A payment first seen after its quote expired does not count at the stale rate (the payer would get a free option
on the price): it is the intent's unexpected funds, shown and refundable in its own asset, and the payer opens a
new attempt with a fresh quote for what is still due. On Anvil, SQLite and PostgreSQL."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent, transactions, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import PAYER, another_sale, created, finished, fund_treasury, usdt_balance

# Read by this module's paygate fixture: quotes lapse in seconds, and so does their grace.
GRACE_SECONDS = 2
EXTRA_ENV = {"PAYGATE_QUOTE_SECONDS": "5", "PAYGATE_QUOTE_GRACE_SECONDS": str(GRACE_SECONDS)}
USDT = "USDT-ETH-TEST"


def _paid_after_the_quote_expired(chain: Chain, shop: Shop) -> tuple[dict[str, Any], str, str]:
    """A 10.50 USD intent whose USDT quote lapsed (grace included) before the payer sent the quoted amount: the
    intent once the transfer is confirmed and screened, the transfer's hash, the quoted amount."""
    intent_id, quote = open_intent(shop.api, USDT, "10.50")
    time.sleep(max(0.0, quote["expired_at"] + GRACE_SECONDS + 2 - time.time()))
    sent = chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    chain.mine(3)
    seen = wait_for(shop.api, intent_id, lambda i: any(
        f["tx_hash"] == sent.tx_hash and f["status"] == "confirmed" and f["aml_status"] == "approved"
        for f in i["unexpected_funds"]) or any(t["tx_hash"] == sent.tx_hash and t["aml_status"] == "approved"
                                               for t in transactions(i)))
    return seen, sent.tx_hash, quote["amount"]


def test_a_payment_first_seen_after_its_quote_expired_does_not_pay_the_intent(chain: Chain, shop: Shop) -> None:
    intent, tx_hash, quoted = _paid_after_the_quote_expired(chain, shop)
    assert intent["status"] == "RequiresPaymentMethod"
    assert intent["payment_details"]["amount_captured"] == {"asset_id": USDT, "amount": "0"}
    assert transactions(intent) == []
    assert intent["charges"][0]["status"] == "Expired"
    [funds] = intent["unexpected_funds"]
    assert (funds["asset_id"], Decimal(funds["amount"]), funds["tx_hash"]) == (USDT, Decimal(quoted), tx_hash)


def test_a_new_attempt_after_a_late_payment_asks_for_the_whole_amount_at_a_fresh_quote(
        chain: Chain, shop: Shop) -> None:
    intent, _, _ = _paid_after_the_quote_expired(chain, shop)
    chosen = ok(shop.api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": USDT}}}))
    fresh = chosen["payment_intents"][0]["payment_method_options"]["crypto"]
    assert fresh["deposit_address"] != intent["charges"][0]["payment_method_options"]["crypto"]["deposit_address"]
    assert Decimal(fresh["amount"]) == Decimal("10.5")


def test_funds_received_after_the_quote_expired_are_refunded_in_their_asset_as_unexpected_funds(
        chain: Chain, shop: Shop) -> None:
    intent, _, quoted = _paid_after_the_quote_expired(chain, shop)
    another_sale(chain, shop)  # the processing fee on the unexpected funds is not the merchant's to give back
    fund_treasury(chain, shop, usdt=20_000_000)
    before = usdt_balance(chain, chain.accounts[PAYER].address)
    rf = created(shop, intent["id"], quoted, asset_id=USDT)
    assert (rf["amount"], rf["unexpected_funds"]) == ({"asset_id": USDT, "amount": "10.5"}, True)
    assert finished(chain, shop, rf["id"])["status"] == "Success"
    assert usdt_balance(chain, chain.accounts[PAYER].address) - before == 10_500_000
