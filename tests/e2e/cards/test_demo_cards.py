"""`paygate demo` as `make run` calls it (PAYGATE_PROVIDER_A_API_BASE at localstripe): the demo merchant takes cards
out of the box, and localstripe sends its signed webhooks to paygate."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from tests.conftest import ok
from tests.e2e.cards.support import SUCCEEDS, THREE_D_SECURE, chose_card, new_intent
from tests.harness import TLS, Service, paygate
from tests.localstripe import LocalStripe


@pytest.fixture
def demo(service: Service, localstripe: LocalStripe) -> dict[str, Any]:
    done = paygate(service.env, service.workdir, "demo", "--json")
    assert done.returncode == 0, done.stderr
    seeded: dict[str, Any] = json.loads(done.stdout)
    return seeded


@pytest.fixture
def demo_api(service: Service, demo: dict[str, Any]) -> Any:
    with httpx.Client(base_url=service.http_url, auth=(demo["test"]["secret_key"], ""), timeout=30,
                      verify=TLS) as client:
        yield client


def test_the_demo_merchant_has_provider_a_test_keys(service: Service, demo: dict[str, Any],
                                                    localstripe: LocalStripe) -> None:
    cards = demo["provider_a"]
    assert cards["publishable_key"].startswith("pk_test_")
    assert cards["webhook_url"] == f"{service.http_url}/webhooks/provider_a/{demo['merchant_id']}"
    assert cards["stripe_js"] == f"{localstripe.url}/js.stripe.com/v3/"
    assert "secret_key" not in cards and "webhook_secret" not in cards


def test_the_demo_merchant_takes_a_card_payment(demo: dict[str, Any], demo_api: httpx.Client,
                                                localstripe: LocalStripe) -> None:
    intent = new_intent(demo_api)
    got = chose_card(demo_api, intent["id"], token=localstripe.tokenize(demo["provider_a"]["publishable_key"],
                                                                        SUCCEEDS))
    assert got["status"] == "Success" and got["charges"][0]["payment_provider"] == "provider_a"


def test_the_demo_merchant_hears_provider_a_webhooks(demo: dict[str, Any], demo_api: httpx.Client,
                                                     localstripe: LocalStripe) -> None:
    pk = demo["provider_a"]["publishable_key"]
    intent = new_intent(demo_api, merchant_order_id="demo-3ds")
    got = chose_card(demo_api, intent["id"], token=localstripe.tokenize(pk, THREE_D_SECURE))
    secret = got["charges"][0]["provider_a_payload"]["client_secret"]
    localstripe.authenticate(pk, secret.split("_secret_")[0], secret)
    deadline = time.monotonic() + 20
    while True:  # the list never asks provider_a: only the webhook localstripe was told about can change it
        [listed] = ok(demo_api.get("/v1/payment_intents", params={"merchant_order_id": "demo-3ds"}))["payment_intents"]
        if listed["status"] == "Success":
            break
        assert time.monotonic() < deadline, f"the demo's webhook never arrived: {listed}"
        time.sleep(0.3)
