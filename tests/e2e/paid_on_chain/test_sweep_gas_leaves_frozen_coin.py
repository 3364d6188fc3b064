"""A token sweep's gas never spends native coin the ledger holds for someone else at the deposit address
(server/treasury/gas.py; DESIGN §15): ETH frozen by AML stays where it is, and the treasury tops the address up
instead, as for an address holding no ETH at all."""

from __future__ import annotations

import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import ok
from tests.e2e.paid_on_chain.conftest import DENIED_PAYER
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import fund_treasury
from tests.e2e.treasury.ledger_support import ledger_at
from tests.harness import TLS, Service

PAYER = 3
FROZEN_WEI = 10**16  # 0.01 ETH from the deny-listed sender
WAIT_SECONDS = 90


@pytest.fixture
def merchant(paygate: Service) -> Iterator[Shop]:
    """A merchant with its treasury address, which the test funds with gas for the sweep's top-up."""
    created: dict[str, Any] = paygate.create_merchant("Frozen gas shop")
    with httpx.Client(base_url=paygate.http_url, auth=(created["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as client:
        yield Shop(client, created["test"]["treasury_address"])


def eth(chain: Chain, address: str) -> int:
    return int(chain.w3.eth.get_balance(chain.w3.to_checksum_address(address)))


def swept(chain: Chain, shop: Shop) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        sweeps = ok(shop.api.get("/v1/sweeps", params={"page_size": 20}))["sweeps"]
        done = [s for s in sweeps if s["status"] == "succeeded"]
        if done:
            return done[0]  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {sweeps}"
        chain.mine(1)
        time.sleep(0.5)


def test_frozen_eth_at_the_deposit_address_never_pays_a_token_sweeps_gas(
        chain: Chain, paygate: Service, merchant: Shop) -> None:
    fund_treasury(chain, merchant, wei=10**17)  # gas for the top-up the sweep needs
    intent_id, quote = open_intent(merchant.api, "USDT-ETH-TEST")
    deposit = quote["deposit_address"]
    chain.send_eth(DENIED_PAYER, deposit, FROZEN_WEI)
    chain.send_token("USDT", PAYER, deposit, base_units(quote["amount"], quote["decimals"]))
    chain.mine(3)
    wait_for(merchant.api, intent_id, lambda i: i["status"] == "Success" and any(
        f["aml_status"] == "rejected" for f in i["unexpected_funds"]))

    sweep = swept(chain, merchant)

    assert sweep["asset_id"] == "USDT-ETH-TEST"
    # The address lacked gas of its own, so the treasury sent it first; the frozen coin paid nothing.
    assert [t["type"] for t in sweep["transactions"]] == ["gas", "sweep"], sweep
    assert eth(chain, deposit) >= FROZEN_WEI
    held = ledger_at(paygate, deposit, "ETH-ETH-TEST")
    assert held.get("frozen") == Decimal("0.01"), held
    # The sweep's gas reservation was given back, nothing there went below zero, and the ledger accounts for every
    # wei on chain there: the frozen coin plus what is left of the top-up.
    assert held.get("locked", Decimal(0)) == 0 and all(v >= 0 for v in held.values()), held
    assert sum(held.values()) == Decimal(eth(chain, deposit)).scaleb(-18), held
    details = {d["currency"]: d for d in ok(merchant.api.get("/v1/stats/balance"))["balance_details"]}
    assert Decimal(details["ETH-ETH-TEST"]["frozen_balance"]) == Decimal("0.01")
