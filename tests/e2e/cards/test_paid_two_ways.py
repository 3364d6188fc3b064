"""An intent offered both ways (a crypto attempt opened, then a card whose 3-D Secure page is left open) and paid
on chain: the open card payment is canceled at provider_a by the scheduler, so finishing 3-D Secure later charges
the card nothing, and a refund of the intent pays back the crypto payment, on chain, in its asset."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chain import Chain, chain  # noqa: F401  (the session's Anvil)
from tests.conftest import ok
from tests.e2e.cards.conftest import card_keys
from tests.e2e.cards.support import THREE_D_SECURE, chose_card, poll
from tests.e2e.paid_on_chain.conftest import mnemonic_for
from tests.e2e.paid_on_chain.test_paid_on_chain import PAYER, base_units
from tests.e2e.refunds.support import FUNDER
from tests.harness import TLS, Service, start, stop
from tests.localstripe import LocalStripe

USDT = "USDT-ETH-TEST"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def both_ways(request: pytest.FixtureRequest, chain: Chain, localstripe: LocalStripe,  # noqa: F811
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"two-ways-{request.param}")),
                networks_file=chain.networks_file,
                extra_env={"PAYGATE_WALLET_MNEMONIC": mnemonic_for(request.module.__name__, request.param),
                           "PAYGATE_PROVIDER_A_API_BASE": localstripe.url})
    yield svc
    stop(svc)


@pytest.fixture
def shop(both_ways: Service) -> Iterator[tuple[httpx.Client, dict[str, Any]]]:
    merchant = both_ways.create_merchant("Both ways")
    merchant["provider_a"] = card_keys(both_ways, merchant["merchant_id"])
    with httpx.Client(base_url=both_ways.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as client:
        yield client, merchant


def read(api: httpx.Client, intent_id: str) -> dict[str, Any]:
    return ok(api.get(f"/v1/payment_intents/{intent_id}"))  # type: ignore[no-any-return]


def paid_on_chain_with_a_card_page_open(chain: Chain, api: httpx.Client, merchant: dict[str, Any],  # noqa: F811
                                        localstripe: LocalStripe) -> tuple[dict[str, Any], dict[str, Any]]:
    """The intent once the crypto payment counts, and its card charge (3-D Secure pending when it was paid)."""
    intent = ok(api.post("/v1/payment_intents", json={"amount": "10.50", "currency": "USD"}))
    crypto = ok(api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": USDT}}}))
    quote = crypto["payment_intents"][0]["payment_method_options"]["crypto"]
    card = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                      THREE_D_SECURE))
    [charge] = [c for c in card["charges"] if c["payment_method_type"] == "cards"]
    assert charge["provider_a_payload"]["status"] == "requires_action"
    chain.send_token("USDT", PAYER, quote["deposit_address"], base_units(quote["amount"], quote["decimals"]))
    chain.mine(3)
    paid = poll(lambda: read(api, intent["id"]), lambda i: i["status"] == "Success", 60)
    return paid, charge


def test_a_card_payment_left_open_is_canceled_at_the_provider_once_crypto_paid(
        chain: Chain, shop: tuple[httpx.Client, dict[str, Any]], localstripe: LocalStripe) -> None:  # noqa: F811
    api, merchant = shop
    paid, charge = paid_on_chain_with_a_card_page_open(chain, api, merchant, localstripe)
    seen = poll(lambda: read(api, paid["id"]),
                lambda i: all(c["status"] != "Pending" for c in i["charges"]), 30)
    assert [(c["payment_method_type"], c["status"]) for c in seen["charges"]] == [("crypto", "Success"),
                                                                                 ("cards", "Failed")]
    payment_id = charge["provider_a_payload"]["client_secret"].split("_secret_")[0]
    at_provider = localstripe.get(f"/v1/payment_intents/{payment_id}", merchant["provider_a"]["secret_key"])
    assert at_provider["status"] == "canceled"
    assert seen["status"] == "Success"
    assert seen["payment_details"]["amount_captured"] == {"asset_id": USDT, "amount": "10.5"}


def test_a_refund_of_an_intent_paid_on_chain_pays_back_its_asset_never_the_card(
        chain: Chain, shop: tuple[httpx.Client, dict[str, Any]], localstripe: LocalStripe) -> None:  # noqa: F811
    api, merchant = shop
    paid, _ = paid_on_chain_with_a_card_page_open(chain, api, merchant, localstripe)
    chain.send_eth(FUNDER, merchant["test"]["treasury_address"], 10**18)  # the refund's USDT and gas
    chain.send_token("USDT", FUNDER, merchant["test"]["treasury_address"], 5 * 10**6)
    made = api.post("/v1/refunds", json={"payment_intent_id": paid["id"], "amount": "1"})
    body = made.json()
    assert made.status_code == 200, body
    [refund] = body["data"]["refunds"]
    assert refund["amount"]["asset_id"] == USDT and refund["charge"] == paid["charges"][0]["id"]
