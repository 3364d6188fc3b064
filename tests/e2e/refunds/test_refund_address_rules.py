"""Where a crypto refund may not go (DESIGN §6, §15): the zero address burns what it is sent, and an address of
paygate's own (any merchant's treasury, any deposit address) takes the money back into the gateway while the refund
reads `Success` and the customer receives nothing. Each is `400 parameter_invalid` naming `refund_address`, and no
refund is created. One paid intent serves the whole module: a refused refund changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.chain import Chain
from tests.conftest import fails, ok
from tests.e2e.paid_on_chain.test_paid_on_chain import base_units, open_intent, wait_for
from tests.e2e.refunds.conftest import Shop
from tests.e2e.refunds.support import PAYER, refund
from tests.harness import TLS, Service

PAYEE = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045"  # nobody of paygate's


@dataclass
class Paid:
    shop: Shop
    merchant: dict[str, Any]
    intent_id: str
    deposit_address: str  # where the intent was paid


@pytest.fixture(scope="module")
def paid(paygate: Service, chain: Chain) -> Iterator[Paid]:
    merchant: dict[str, Any] = paygate.create_merchant("Refund address shop")
    with httpx.Client(base_url=paygate.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as api:
        intent_id, quote = open_intent(api, "USDT-ETH-TEST", "10")
        chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
        chain.mine(3)
        wait_for(api, intent_id, lambda i: i["status"] == "Success")
        yield Paid(Shop(api, merchant["test"]["treasury_address"]), merchant, intent_id, quote["deposit_address"])


def refused(paid: Paid, address: str) -> str:
    """Refunds 1 USDT of the paid intent to `address`; checks the refusal and that nothing was created. Its msg."""
    body = fails(refund(paid.shop, paid.intent_id, "1", refund_address=address), 400, "parameter_invalid",
                 "refund_address")
    assert ok(paid.shop.api.get("/v1/refunds", params={"payment_intent": paid.intent_id}))["refunds"] == []
    return str(body["msg"])


def test_the_zero_address_is_refused(paid: Paid) -> None:
    assert "zero address" in refused(paid, "0x" + "0" * 40)


def test_an_address_without_the_0x_prefix_is_refused(paid: Paid) -> None:
    assert "0x" in refused(paid, PAYEE[2:])


def test_the_merchants_own_treasury_is_refused(paid: Paid) -> None:
    assert "paygate address" in refused(paid, paid.shop.treasury)


def test_the_merchants_own_treasury_in_lower_case_is_refused(paid: Paid) -> None:
    assert "paygate address" in refused(paid, paid.shop.treasury.lower())


def test_the_merchants_live_treasury_is_refused(paid: Paid) -> None:
    assert paid.merchant["live"]["treasury_address"]
    assert "paygate address" in refused(paid, paid.merchant["live"]["treasury_address"])


def test_another_merchants_treasury_is_refused(paid: Paid, paygate: Service) -> None:
    other = paygate.create_merchant("Another shop")
    assert "paygate address" in refused(paid, other["test"]["treasury_address"])


def test_the_intents_own_deposit_address_is_refused(paid: Paid) -> None:
    assert "paygate address" in refused(paid, paid.deposit_address)


def test_the_deposit_address_of_another_open_intent_is_refused(paid: Paid) -> None:
    _, quote = open_intent(paid.shop.api, "USDT-ETH-TEST", "5")
    assert "paygate address" in refused(paid, quote["deposit_address"])


def test_an_address_of_nobody_at_paygate_is_accepted(paid: Paid) -> None:
    # Last: it creates a refund (the treasury holds nothing, so it is refused for funds, never for the address).
    answer = refund(paid.shop, paid.intent_id, "1", refund_address=PAYEE)
    assert answer.json()["error_code"] != "parameter_invalid", answer.json()
