"""Card testing through the hosted page (DESIGN §16): card attempts are capped per intent (5), per customer and per
client IP (10 an hour each), and 3 declines in an hour for one customer or IP refuse card payment for that hour
(`429 rate_limited` with `Retry-After`), each refusal logged with its reason; crypto is never refused for it.

The shoppers are clients bound to their own loopback addresses (127.0.0.2, 127.0.0.3, …), which the facade sees as
the client IP. The counts last an hour, so this module has a service of its own, and each test its own addresses.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.cards.support import DECLINED, SUCCEEDS, THREE_D_SECURE, new_intent
from tests.e2e.subscriptions.support import advance, buy, club, subscription, wait_for
from tests.harness import TLS, Service, log_lines, start, stop
from tests.localstripe import LocalStripe

UPDATE = "/payment_intents/link/{id}/update"
ETH = "ETH-ETH-TEST"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            localstripe: LocalStripe) -> Iterator[Service]:
    """Not the card tests' shared service: the shoppers' addresses must not carry other modules' attempts."""
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paygate-card-testing-{request.param}")),
                extra_env={"PAYGATE_PROVIDER_A_API_BASE": localstripe.url})
    yield svc
    stop(svc)


class Shoppers(dict[str, httpx.Client]):
    """Anonymous clients by source address, made on first use."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def __missing__(self, ip: str) -> httpx.Client:
        client = self[ip] = httpx.Client(base_url=self.url, timeout=30, verify=TLS,
                                         transport=httpx.HTTPTransport(local_address=ip, verify=TLS))
        return client


@pytest.fixture
def shoppers(service: Service) -> Iterator[Shoppers]:
    """Each test asks for addresses no other test of the module uses."""
    made = Shoppers(service.http_url)
    yield made
    for client in made.values():
        client.close()


def card(merchant: dict[str, Any], localstripe: LocalStripe, number: str) -> str:
    return localstripe.tokenize(merchant["provider_a"]["publishable_key"], number)


def pay_by_card(shopper: httpx.Client, merchant: dict[str, Any], intent: dict[str, Any], token: str
                ) -> httpx.Response:
    """The hosted page's card step: the public key, the intent's client secret and a card token."""
    return shopper.post(UPDATE.format(id=intent["id"]), json={
        "key": merchant["test"]["public_key"], "client_secret": intent["client_secret"],
        "payment_method_type": "cards", "payment_method_options": {"fiat": {"currency": "USD", "token": token}}})


def pay_by_crypto(shopper: httpx.Client, merchant: dict[str, Any], intent: dict[str, Any]) -> httpx.Response:
    return shopper.post(UPDATE.format(id=intent["id"]), json={
        "key": merchant["test"]["public_key"], "client_secret": intent["client_secret"],
        "payment_method_type": "crypto", "payment_method_options": {"crypto": {"asset_id": ETH}}})


def declined(shopper: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
             intent: dict[str, Any]) -> None:
    got = ok(pay_by_card(shopper, merchant, intent, card(merchant, localstripe, DECLINED)))
    assert got["status"] == "RequiresPaymentMethod" and got["charges"][-1]["status"] == "Failed", got


def paid(shopper: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe, intent: dict[str, Any]) -> None:
    got = ok(pay_by_card(shopper, merchant, intent, card(merchant, localstripe, SUCCEEDS)))
    assert got["status"] == "Success", got


def rate_limited(response: httpx.Response, most: int = 3600) -> int:
    """A 429 `rate_limited` refusal; the seconds its Retry-After asks to wait (by default at most the hour)."""
    fails(response, 429, "rate_limited")
    wait = int(response.headers["Retry-After"])
    assert 1 <= wait <= most, wait
    return wait


def refusals(service: Service, reason: str, **fields: Any) -> list[dict[str, Any]]:
    return log_lines(service, msg="card attempt refused", reason=reason, **fields)


def customer(api: httpx.Client, email: str) -> str:
    return str(ok(api.post("/v1/customers", json={"name": "Shopper", "email": email}))["id"])


def test_the_sixth_card_attempt_on_one_intent_is_refused(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        shoppers: Shoppers) -> None:
    intent = new_intent(api)
    # 3-D Secure cards: each attempt waits for the payer, and the next one withdraws it; no decline is counted.
    for n in range(5):
        got = ok(pay_by_card(shoppers["127.0.1.2"], merchant, intent, card(merchant, localstripe, THREE_D_SECURE)))
        assert len(got["charges"]) == n + 1
    # No later attempt is taken: the wait is the intent's remaining life (a day by default).
    rate_limited(pay_by_card(shoppers["127.0.1.2"], merchant, intent, card(merchant, localstripe, SUCCEEDS)), 86400)
    # Not the address: another one is refused on this intent too, and the first one pays another intent.
    rate_limited(pay_by_card(shoppers["127.0.1.3"], merchant, intent, card(merchant, localstripe, SUCCEEDS)), 86400)
    paid(shoppers["127.0.1.2"], merchant, localstripe, new_intent(api))
    assert len(ok(api.get(f"/v1/payment_intents/{intent['id']}"))["charges"]) == 5
    assert len(refusals(service, "intent_attempts", payment_intent=intent["id"])) == 2


def test_the_eleventh_card_attempt_from_one_ip_in_an_hour_is_refused(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        shoppers: Shoppers) -> None:
    for _ in range(10):
        paid(shoppers["127.0.0.2"], merchant, localstripe, new_intent(api))
    intent = new_intent(api)
    rate_limited(pay_by_card(shoppers["127.0.0.2"], merchant, intent, card(merchant, localstripe, SUCCEEDS)))
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["charges"] == []
    paid(shoppers["127.0.0.3"], merchant, localstripe, intent)
    assert len(refusals(service, "ip_attempts", client_ip="127.0.0.2")) == 1


def test_card_attempts_sent_at_once_from_one_ip_pass_the_count_one_by_one(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe, shoppers: Shoppers) -> None:
    intents = [new_intent(api) for _ in range(12)]
    tokens = [card(merchant, localstripe, SUCCEEDS) for _ in intents]
    shopper = shoppers["127.0.8.2"]
    with ThreadPoolExecutor(len(intents)) as pool:
        answers = list(pool.map(lambda it, tok: pay_by_card(shopper, merchant, it, tok), intents, tokens))
    assert sorted(a.status_code for a in answers) == [200] * 10 + [429] * 2, [a.json() for a in answers]


def test_after_three_declines_from_one_ip_even_a_good_card_is_refused_there(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        shoppers: Shoppers) -> None:
    for _ in range(3):
        declined(shoppers["127.0.2.2"], merchant, localstripe, new_intent(api))
    intent = new_intent(api)
    rate_limited(pay_by_card(shoppers["127.0.2.2"], merchant, intent, card(merchant, localstripe, SUCCEEDS)))
    paid(shoppers["127.0.2.3"], merchant, localstripe, intent)
    assert len(refusals(service, "ip_declines", client_ip="127.0.2.2")) == 1


def test_two_declines_from_one_ip_still_let_a_good_card_pay(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        shoppers: Shoppers) -> None:
    intent = new_intent(api)
    for _ in range(2):
        declined(shoppers["127.0.3.2"], merchant, localstripe, intent)
    paid(shoppers["127.0.3.2"], merchant, localstripe, intent)


def test_after_three_declines_for_one_customer_from_any_ips_card_payment_is_refused_for_that_customer(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        shoppers: Shoppers) -> None:
    ann, bob = customer(api, "ann@example.com"), customer(api, "bob@example.com")
    for ip in ("127.0.4.2", "127.0.4.3", "127.0.4.4"):
        declined(shoppers[ip], merchant, localstripe, new_intent(api, customer=ann))
    intent = new_intent(api, customer=ann)
    rate_limited(pay_by_card(shoppers["127.0.4.5"], merchant, intent, card(merchant, localstripe, SUCCEEDS)))
    paid(shoppers["127.0.4.5"], merchant, localstripe, new_intent(api, customer=bob))
    assert len(refusals(service, "customer_declines", customer=ann)) == 1


def test_the_eleventh_card_attempt_for_one_customer_from_any_ips_in_an_hour_is_refused(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        shoppers: Shoppers) -> None:
    ann, bob = customer(api, "ann@example.com"), customer(api, "bob@example.com")
    for n in range(10):
        paid(shoppers[f"127.0.5.{2 + n % 2}"], merchant, localstripe, new_intent(api, customer=ann))
    rate_limited(pay_by_card(shoppers["127.0.5.4"], merchant, new_intent(api, customer=ann),
                             card(merchant, localstripe, SUCCEEDS)))
    paid(shoppers["127.0.5.4"], merchant, localstripe, new_intent(api, customer=bob))
    assert len(refusals(service, "customer_attempts", customer=ann)) == 1


def test_crypto_pays_the_intent_that_an_ip_is_refused_card_payment_on(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        shoppers: Shoppers) -> None:
    for _ in range(3):
        declined(shoppers["127.0.6.2"], merchant, localstripe, new_intent(api))
    intent = new_intent(api)
    rate_limited(pay_by_card(shoppers["127.0.6.2"], merchant, intent, card(merchant, localstripe, SUCCEEDS)))
    chosen = ok(pay_by_crypto(shoppers["127.0.6.2"], merchant, intent))
    assert chosen["charges"][-1]["amount"]["asset_id"] == ETH and chosen["charges"][-1]["status"] == "Pending"


def test_a_merchant_paying_by_card_with_its_secret_key_is_not_limited_by_its_own_ip(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    # The merchant's server speaks for all its shoppers from one address: only the per-intent cap applies there.
    for _ in range(4):
        intent = new_intent(api)
        got = ok(api.post(f"/v1/payment_intents/{intent['id']}", json={
            "payment_method_type": "cards",
            "payment_method_options": {"fiat": {"currency": "USD", "token": card(merchant, localstripe, DECLINED)}}}))
        assert got["payment_intents"][0]["charges"][-1]["status"] == "Failed"
    intent = new_intent(api)
    got = ok(api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "cards",
        "payment_method_options": {"fiat": {"currency": "USD", "token": card(merchant, localstripe, SUCCEEDS)}}}))
    assert got["payment_intents"][0]["status"] == "Success"


def test_a_customer_refused_card_payment_on_the_page_is_still_renewed_by_card(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe, shoppers: Shoppers) -> None:
    ann = customer(api, "ann@example.com")
    first = buy(api, club(api), {"id": ann}, plan="monthly")
    got = ok(shoppers["127.0.7.2"].post(UPDATE.format(id=first["id"]), json={
        "key": merchant["test"]["public_key"], "client_secret": first["client_secret"], "payment_method_type": "cards",
        "payment_method_options": {"fiat": {"currency": "USD", "save_payment_method": True,
                                            "token": card(merchant, localstripe, SUCCEEDS)}}}))
    assert got["status"] == "Success", got
    sub = wait_for(lambda: subscription(api, first["subscription"]), lambda s: s["status"] == "active")
    for _ in range(3):
        declined(shoppers["127.0.7.3"], merchant, localstripe, new_intent(api, customer=ann))
    rate_limited(pay_by_card(shoppers["127.0.7.2"], merchant, new_intent(api, customer=ann),
                             card(merchant, localstripe, SUCCEEDS)))
    # The renewal is paygate's own off-session charge of the saved card: no shopper, no address, not refused.
    renewed = advance(api, sub["id"], sub["current_period_end"] + 60)
    assert renewed["status"] == "active" and renewed["current_cycle_number"] == 2
