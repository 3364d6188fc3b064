"""A token refund's gas is the merchant's cost like any treasury transaction's (server/treasury/gas.py), on Anvil
through /v1 and the scheduler: set aside before signing out of the merchant's available ETH at the treasury, then
ETH sent there by hand; never paygate's processing fees held there. A refund neither covers waits Pending and goes
once the merchant funds its gas."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from server.payment_intents.totals import text
from tests.chain import Chain
from tests.e2e.refunds.support import FUNDER, created, finished, paid_intent, usdt_balance
from tests.e2e.treasury.conftest import Merchant
from tests.e2e.treasury.ledger_support import ledger_at, wait_logged
from tests.e2e.treasury.test_addresses import fresh_address
from tests.e2e.treasury.test_gas_never_from_fees import FEE, treasury_eth
from tests.e2e.treasury.test_sweeps import wait_sweeps
from tests.harness import Service

ETH, USDT = "ETH-ETH-TEST", "USDT-ETH-TEST"
# A hang guard, not a speed claim: two payments, their sweeps and two refunds take a dozen scheduler passes.
pytestmark = pytest.mark.timeout(600)


def usdt_in_the_treasury_and_only_paygates_fee_in_eth(chain: Chain, shop: Merchant,
                                                      paygate: Service) -> dict[str, Any]:
    """1 ETH and 10.50 USDT paid and swept in (the USDT's gas top-up out of the merchant's ETH), then the merchant's
    available ETH at the treasury refunded: the treasury holds on chain exactly paygate's fee in ETH. The USDT sale."""
    eth_sale = paid_intent(chain, shop, ETH, "3000")  # 1 ETH at 3000 USD
    wait_sweeps(chain, shop, 1)
    usdt_sale = paid_intent(chain, shop, USDT, "10.50")
    wait_sweeps(chain, shop, 2)
    whole = ledger_at(paygate, shop.treasury, ETH)["available"]
    refund = created(shop, eth_sale["id"], text(whole))
    assert finished(chain, shop, refund["id"])["status"] == "Success"
    assert treasury_eth(chain, shop) == ledger_at(paygate, shop.treasury, ETH)["fees"] == FEE
    return usdt_sale


def waiting_token_refund(chain: Chain, shop: Merchant, paygate: Service) -> tuple[dict[str, Any], str]:
    """5 USDT refunded to a customer's fresh address, once it has waited for its gas: the refund and the address."""
    sale = usdt_in_the_treasury_and_only_paygates_fee_in_eth(chain, shop, paygate)
    customer = fresh_address()
    refund = created(shop, sale["id"], "5", refund_address=customer)
    wait_logged(chain, paygate, msg="refund waits", refund=refund["id"], reason="insufficient_gas")
    return refund, customer


def test_a_token_refund_waits_for_its_gas_rather_than_spend_paygates_fees(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    refund, customer = waiting_token_refund(chain, shop, paygate)
    waiting = shop.api.get(f"/v1/refunds/{refund['id']}").json()["data"]
    assert (waiting["status"], waiting["transactions"]) == ("Pending", []), waiting
    assert treasury_eth(chain, shop) == ledger_at(paygate, shop.treasury, ETH)["fees"] == FEE
    assert usdt_balance(chain, customer) == 0


def test_a_waiting_token_refund_goes_once_the_merchant_sends_its_gas_and_spends_no_more_than_was_sent(
        chain: Chain, shop: Merchant, paygate: Service) -> None:
    refund, customer = waiting_token_refund(chain, shop, paygate)
    by_hand = Decimal("0.001")
    chain.send_eth(FUNDER, shop.treasury, int(by_hand.scaleb(18)))  # its gas, by hand and never recorded
    done = finished(chain, shop, refund["id"])
    assert done["status"] == "Success", done
    assert usdt_balance(chain, customer) == 5_000_000  # the whole amount: the gas was paid in ETH, apart
    at_treasury = ledger_at(paygate, shop.treasury, ETH)
    seen = {"chain": treasury_eth(chain, shop), **at_treasury}
    assert at_treasury["fees"] == FEE and treasury_eth(chain, shop) >= FEE, seen  # paygate's fees are whole
    assert -by_hand <= at_treasury["gas"] < 0, seen  # the gas spent no more than was sent by hand
    assert at_treasury.get("locked", Decimal(0)) == 0, seen  # nothing left set aside
