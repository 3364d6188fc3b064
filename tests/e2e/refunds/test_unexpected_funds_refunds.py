"""Unexpected funds go back (DESIGN §14: visible, refundable by an operator, never counted as paid), on Anvil.

USDT sent to the deposit address of a charge priced in ETH is the intent's unexpected funds. `POST /v1/refunds`
with `asset_id` naming that asset refunds it (never more than arrived in that asset, also under concurrent calls),
and so does the operator's `paygate refunds unexpected`; the intent's own amounts and status do not move.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import httpx

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.paid_on_chain.test_paid_on_chain import open_intent, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import PAYER, another_sale, fund_treasury, refund, usdt_balance, wait_refund
from tests.harness import TLS, Service
from tests.harness import paygate as cli

USDT = "USDT-ETH-TEST"
ONE_USDT = 1_000_000
ETH_PRICED = "3000"  # USD: a quote of exactly 1 ETH at the default 3000 USD per ETH


def _usdt_into_an_eth_charge(chain: Chain, shop: Shop, amount: int = ONE_USDT) -> dict[str, Any]:
    """An ETH charge whose address received `amount` USDT, confirmed and screened: the intent as the API shows it."""
    intent_id, quote = open_intent(shop.api, "ETH-ETH-TEST", ETH_PRICED)
    sent = chain.send_token("USDT", PAYER, quote["deposit_address"], amount)
    chain.mine(3)
    return wait_for(shop.api, intent_id, lambda i: any(
        f["tx_hash"] == sent.tx_hash and f["status"] == "confirmed" and f["aml_status"] == "approved"
        for f in i["unexpected_funds"]))


def _final(chain: Chain, shop: Shop, refund_id: str) -> dict[str, Any]:
    return wait_refund(chain, shop, refund_id, lambda r: r["status"] in ("Success", "Failed"))


def test_usdt_sent_to_an_eth_charge_is_refunded_in_usdt_to_its_sender(chain: Chain, shop: Shop) -> None:
    intent = _usdt_into_an_eth_charge(chain, shop)
    another_sale(chain, shop)  # the processing fee on the unexpected funds is not the merchant's to give back
    fund_treasury(chain, shop, usdt=5 * ONE_USDT)
    payer = chain.accounts[PAYER].address
    before = usdt_balance(chain, payer)
    [rf] = ok(refund(shop, intent["id"], "1", asset_id=USDT))["refunds"]
    assert (rf["status"], rf["amount"]["amount"], rf["amount"]["asset_id"]) == ("Pending", "1", USDT)
    assert rf["refund_address"] == payer.lower()
    assert rf["unexpected_funds"] is True
    done = _final(chain, shop, rf["id"])
    assert done["status"] == "Success", done
    assert usdt_balance(chain, payer) - before == ONE_USDT
    after = ok(shop.api.get(f"/v1/payment_intents/{intent['id']}"))
    assert after["status"] == "RequiresPaymentMethod"  # nothing was paid, nothing of the payment was refunded
    assert Decimal(after["payment_details"]["amount_refunded"]["amount"]) == 0
    assert after["charges"][0]["refunds"] == []  # the ETH charge's own refunds are refunds in ETH
    assert Decimal(after["charges"][0]["amount_refunded"]["amount"]) == 0


def test_more_unexpected_funds_than_arrived_are_refused(chain: Chain, shop: Shop) -> None:
    intent = _usdt_into_an_eth_charge(chain, shop)
    fund_treasury(chain, shop, usdt=5 * ONE_USDT)
    fails(refund(shop, intent["id"], "1.000001", asset_id=USDT), 400, "refund_amount_exceeded", "amount")
    ok(refund(shop, intent["id"], "0.6", asset_id=USDT))
    left = fails(refund(shop, intent["id"], "0.5", asset_id=USDT), 400, "refund_amount_exceeded", "amount")
    assert "at most 0.4 USDT-ETH-TEST" in left["msg"]


def test_an_asset_without_unexpected_funds_is_refused(chain: Chain, shop: Shop) -> None:
    intent = _usdt_into_an_eth_charge(chain, shop)
    fund_treasury(chain, shop, usdt=5 * ONE_USDT)
    fails(refund(shop, intent["id"], "1", asset_id="USDC-ETH-TEST"), 400, "parameter_invalid", "asset_id")
    fails(refund(shop, intent["id"], "1", asset_id="ETH-ETH-TEST"), 400, "parameter_invalid", "asset_id")
    fails(refund(shop, intent["id"], "1", asset_id="NOPE"), 400, "parameter_invalid", "asset_id")


def test_another_merchants_intent_is_an_invalid_payment_intent(chain: Chain, shop: Shop, paygate: Service) -> None:
    intent = _usdt_into_an_eth_charge(chain, shop)
    other = paygate.create_merchant("Other shop")
    with httpx.Client(base_url=paygate.http_url, auth=(other["test"]["secret_key"], ""), timeout=60, verify=TLS) as api:
        fails(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "1", "asset_id": USDT}),
              400, "invalid_payment_intent")


def test_concurrent_refunds_of_the_same_unexpected_funds_accept_exactly_one(chain: Chain, shop: Shop) -> None:
    intent = _usdt_into_an_eth_charge(chain, shop)
    another_sale(chain, shop)
    fund_treasury(chain, shop, usdt=20 * ONE_USDT)

    def attempt(_: int) -> httpx.Response:
        return refund(shop, intent["id"], "1", asset_id=USDT)

    with ThreadPoolExecutor(max_workers=10) as pool:
        codes = sorted(r.json()["error_code"] for r in pool.map(attempt, range(10)))
    assert codes == ["refund_amount_exceeded"] * 9 + ["success"]


def test_the_operator_refunds_unexpected_funds_from_the_command_line(chain: Chain, shop: Shop,
                                                                     paygate: Service) -> None:
    intent = _usdt_into_an_eth_charge(chain, shop, 2 * ONE_USDT)
    another_sale(chain, shop)
    fund_treasury(chain, shop, usdt=5 * ONE_USDT)
    elsewhere = chain.accounts[PAYER + 5].address
    before = usdt_balance(chain, elsewhere)
    done = cli(paygate.env, paygate.workdir, "refunds", "unexpected", "--intent", intent["id"],
                   "--asset", USDT, "--amount", "1.5", "--address", elsewhere)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert (printed["status"], printed["amount"]["amount"], printed["refund_address"]) == \
        ("Pending", "1.5", elsewhere.lower())
    assert _final(chain, shop, printed["id"])["status"] == "Success"
    assert usdt_balance(chain, elsewhere) - before == 1_500_000
    rest = cli(paygate.env, paygate.workdir, "refunds", "unexpected", "--intent", intent["id"],
                   "--asset", USDT)  # no amount: what is left, to the sender
    assert rest.returncode == 0, rest.stderr
    assert json.loads(rest.stdout)["amount"]["amount"] == "0.5"
    again = cli(paygate.env, paygate.workdir, "refunds", "unexpected", "--intent", intent["id"],
                    "--asset", USDT)
    assert again.returncode == 1 and "refund_amount_exceeded" in again.stderr, again.stderr
