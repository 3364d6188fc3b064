"""Sweeps on Anvil, end to end through /v1 (DESIGN §15): three payments (native and USDT) move from their deposit
addresses into the treasury; the addresses end empty but for gas dust below the minimum; the treasury holds the sum
minus the network fees; the balance answers the ledger's sums."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.test_paid_on_chain import intent_of, transactions
from tests.e2e.refunds.support import fund_treasury, paid_intent, usdt_balance
from tests.e2e.treasury.conftest import Merchant

WAIT_SECONDS = 90
ETH_MINIMUM = Decimal("0.001")


def sweeps(shop: Merchant) -> list[dict[str, Any]]:
    return ok(shop.api.get("/v1/sweeps", params={"page_size": 50}))["sweeps"]  # type: ignore[no-any-return]


def wait_sweeps(chain: Chain, shop: Merchant, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        seen = sweeps(shop)
        if len([s for s in seen if s["status"] == "succeeded"]) >= count:
            return seen
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {seen}"
        chain.mine(1)
        time.sleep(0.5)


def eth(chain: Chain, address: str) -> int:
    return int(chain.w3.eth.get_balance(chain.w3.to_checksum_address(address)))


def test_three_payments_are_swept_into_the_treasury(chain: Chain, shop: Merchant) -> None:
    fund_treasury(chain, shop, wei=10**17)  # gas for the token sweeps' top-ups
    treasury_eth_before = eth(chain, shop.treasury)
    paid = [paid_intent(chain, shop, "USDT-ETH-TEST", "10.50"), paid_intent(chain, shop, "USDT-ETH-TEST", "5"),
            paid_intent(chain, shop, "ETH-ETH-TEST", "30")]  # 0.01 ETH at 3000 USD
    found = wait_sweeps(chain, shop, 3)
    done = [s for s in found if s["status"] == "succeeded"]
    assert len(done) == 3 and len(found) == 3, found
    by_asset = sorted((s["asset_id"], s["amount"]) for s in done)
    assert by_asset == [("ETH-ETH-TEST", "0.01"), ("USDT-ETH-TEST", "10.5"), ("USDT-ETH-TEST", "5")]
    assert {s["destination_address"] for s in done} == {shop.treasury.lower()}
    # Token sweeps: a gas top-up from the treasury, then the token transfer; the native sweep: one transaction.
    kinds = {s["asset_id"]: [t["type"] for t in s["transactions"]] for s in done}
    assert kinds["USDT-ETH-TEST"] == ["gas", "sweep"] and kinds["ETH-ETH-TEST"] == ["sweep"]
    assert all(t["status"] == "confirmed" for s in done for t in s["transactions"])

    deposits = {s["source_address"] for s in done}
    assert len(deposits) == 3
    assert all(usdt_balance(chain, a) == 0 for a in deposits)
    dust = sum(eth(chain, a) for a in deposits)
    assert all(Decimal(eth(chain, a)).scaleb(-18) < ETH_MINIMUM for a in deposits)
    fees = sum(Decimal(s["network_fee"]) for s in done)  # all in ETH
    assert usdt_balance(chain, shop.treasury) == 15_500_000  # every token arrives: 10.50 + 5
    assert Decimal(eth(chain, shop.treasury) - treasury_eth_before).scaleb(-18) == \
        Decimal("0.01") - fees - Decimal(dust).scaleb(-18)

    balance = ok(shop.api.get("/v1/stats/balance"))
    details = {d["currency"]: d for d in balance["balance_details"]}
    assert details["USDT-ETH-TEST"]["available_balance"] == "15.345"  # 15.50 less the 1% processing fee
    # The ETH payment less its fee, less the network fees it covered when each was paid (the gas rule: a top-up paid
    # before the ETH was swept in came out of the ETH sent to the treasury by hand, never taking available below
    # zero); the dust at the deposit addresses is still the merchant's.
    assert Decimal("0.0099") - fees <= Decimal(details["ETH-ETH-TEST"]["available_balance"]) <= Decimal("0.0099")
    # The gas top-ups reached the USDT intents' deposit addresses, but they are paygate's own moves, not payments.
    for intent in paid:
        again = intent_of(shop.api, intent["id"])
        assert not again.get("unexpected_funds") and len(transactions(again)) == 1, again


def test_sweeps_of_another_merchant_are_not_listed(chain: Chain, shop: Merchant) -> None:
    assert sweeps(shop) == []
    assert ok(shop.live.get("/v1/sweeps"))["sweeps"] == []
