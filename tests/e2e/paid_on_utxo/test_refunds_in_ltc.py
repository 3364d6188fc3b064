"""Refunds of LTC payments on a real litecoind -regtest, paid from the merchant's LTC treasury by the running scheduler
(issue 34, DESIGN §18): a refund names where it goes, arrives with amount - network_fee, and concurrent refunds never
spend one output twice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx

from server.boot.startup import database
from server.catalogue.catalogue import load
from server.config import load_settings
from server.rails.registry import key_scheme
from server.wallet.addresses import treasury_address
from server.wallet.mnemonics import Keys
from tests.conftest import ok
from tests.e2e.paid_on_utxo.test_paid_in_ltc import open_intent, wait_for
from tests.harness import Service
from tests.litecoin import Litecoin

WAIT_SECONDS = 90


def ltc_treasury(paygate: Service, merchant_id: str) -> str:
    """The merchant's LTC treasury in test mode, derived as the server derives it (the API shows only its EVM one)."""
    settings = load_settings({k: v for k, v in paygate.env.items() if k.startswith("PAYGATE_")})
    network = load(settings.networks_file).networks["LTC-TEST"]

    async def read() -> str:
        db = database(settings)
        try:
            async with db.transaction() as session:
                found = await treasury_address(session, Keys.of(settings), key_scheme(network), merchant_id, False)
        finally:
            await db.close()
        assert found
        return found

    return asyncio.run(read())


def merchant_id(shop: httpx.Client) -> str:
    return str(ok(shop.get("/v1/merchants/me"))["id"])


def paid(litecoin: Litecoin, shop: httpx.Client) -> str:
    intent_id, quote = open_intent(shop)
    litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]))
    litecoin.mine(3)
    wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    return intent_id


def create(shop: httpx.Client, intent_id: str, amount: str, to: str) -> dict[str, Any]:
    answer = ok(shop.post("/v1/refunds", json={"payment_intent_id": intent_id, "amount": amount,
                                               "refund_address": to}))
    refund: dict[str, Any] = answer["refunds"][0]
    return refund


def wait_refund(litecoin: Litecoin, shop: httpx.Client, refund_id: str,
                check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Mines a block every pass, as a live network would, until `check` holds."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        refund: dict[str, Any] = ok(shop.get(f"/v1/refunds/{refund_id}"))
        if check(refund):
            return refund
        assert time.monotonic() < deadline, f"gave up waiting; last seen: {refund}"
        litecoin.mine(1)
        time.sleep(1)


def received(litecoin: Litecoin, address: str) -> Decimal:
    return Decimal(str(litecoin.wallet("getreceivedbyaddress", address, 1)))


def test_a_refund_without_a_refund_address_is_refused_and_nothing_is_created(litecoin: Litecoin,
                                                                             shop: httpx.Client) -> None:
    intent_id = paid(litecoin, shop)
    answer = shop.post("/v1/refunds", json={"payment_intent_id": intent_id, "amount": "0.05"})
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["error_code"] == "parameter_missing" and "refund_address" in body["msg"]
    assert ok(shop.get("/v1/refunds", params={"payment_intent_id": intent_id}))["refunds"] == []


def refund_of_a_paid_intent(litecoin: Litecoin, paygate: Service, shop: httpx.Client,
                            amount: str) -> tuple[dict[str, Any], str]:
    """A paid intent, its merchant's LTC treasury funded by hand with 1 LTC, and a refund of `amount` to a fresh
    address of the payer's wallet: the refund as created, and that address."""
    intent_id = paid(litecoin, shop)
    litecoin.pay(ltc_treasury(paygate, merchant_id(shop)), Decimal("1"))
    litecoin.mine(1)
    to = str(litecoin.wallet("getnewaddress", "", "bech32"))
    return create(shop, intent_id, amount, to), to


def test_a_refund_arrives_at_its_refund_address_as_the_amount_less_the_network_fee(
        litecoin: Litecoin, paygate: Service, shop: httpx.Client) -> None:
    rf, to = refund_of_a_paid_intent(litecoin, paygate, shop, "0.05")
    done = wait_refund(litecoin, shop, rf["id"], lambda r: r["status"] in ("Success", "Failed"))
    assert done["status"] == "Success", done
    fee = Decimal(str(done["network_fee"]["amount"]))
    assert Decimal(0) < fee < Decimal("0.001")  # about 141 vB at the regtest floor of 1 litoshi per vB
    assert received(litecoin, to) == Decimal("0.05") - fee
    tx = litecoin.call("getrawtransaction", done["transactions"][0]["tx_hash"], True)
    assert tx["confirmations"] >= 1


def test_ten_concurrent_refunds_never_spend_one_output_twice(litecoin: Litecoin, paygate: Service,
                                                             shop: httpx.Client) -> None:
    treasury = ltc_treasury(paygate, merchant_id(shop))
    for _ in range(4):  # fewer outputs than refunds: most refunds must wait for change to come back
        litecoin.pay(treasury, Decimal("0.5"))
    litecoin.mine(1)
    intent_id, quote = open_intent(shop, amount="100.00")  # 1.25 LTC at 80 USD
    litecoin.pay(quote["deposit_address"], Decimal(quote["amount"]))
    litecoin.mine(3)
    wait_for(shop, intent_id, lambda i: i["status"] == "Success")
    destinations = [str(litecoin.wallet("getnewaddress", "", "bech32")) for _ in range(10)]
    refunds = [create(shop, intent_id, "0.1", to) for to in destinations]
    done = [wait_refund(litecoin, shop, rf["id"], lambda r: r["status"] in ("Success", "Failed"))
            for rf in refunds]
    assert [r["status"] for r in done] == ["Success"] * 10
    outpoints: list[tuple[str, int]] = []
    for r in done:
        (t,) = r["transactions"]
        tx = litecoin.call("getrawtransaction", t["tx_hash"], True)
        outpoints += [(v["txid"], v["vout"]) for v in tx["vin"]]
    assert len(outpoints) == len(set(outpoints))
    for r, to in zip(done, destinations, strict=True):
        assert received(litecoin, to) == Decimal("0.1") - Decimal(str(r["network_fee"]["amount"]))
