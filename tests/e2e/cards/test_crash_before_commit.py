"""paygate killed after provider_a charged the card and before its answer was applied: the payment is never lost
and never made twice (DESIGN §9, §16).

The service here talks to provider_a through the shared proxy (tests/e2e/cards/provider_proxy.py), which forwards the
request that charges the card to localstripe (the card is charged) and then SIGKILLs `paygate serve` before the
answer reaches it. The charge was committed before the call, marked out at the provider (Pending, `unconfirmed`);
nothing else of the payment was. paygate is then started again on the same database, and provider_a's webhook about
that payment arrives, as the provider sends it again until it is received, or the shopper tries again. localstripe
keeps no idempotency keys; where the shopper tries again, the proxy keeps them as Stripe documents (`replays`).
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.cards.payments import UNCONFIRMED, keyed_charge_id
from tests.conftest import fails, ok
from tests.e2e.cards.provider_proxy import CRASH, PASS, ProviderProxy, fresh, provider_proxy, proxied_service
from tests.e2e.cards.support import (
    SUCCEEDS,
    choose_card,
    chose_card,
    new_intent,
    provider_payments,
    rows,
    wait_for,
)
from tests.e2e.cards.test_unrecorded_provider_payments import deliver, succeeded_events
from tests.harness import Service, launch, stop
from tests.localstripe import LocalStripe

# Each test kills and starts paygate again: a Python start on a loaded machine takes tens of seconds.
pytestmark = pytest.mark.timeout(300)

CONFIRM = ("POST", "/confirm")  # a token's confirmation: POST /v1/payment_intents/{id}/confirm
OFF_SESSION = ("POST", "/v1/payment_intents")  # a saved card's payment: created and confirmed in one request


@pytest.fixture(scope="module")
def proxy(localstripe: LocalStripe) -> Iterator[ProviderProxy]:
    with provider_proxy(localstripe.url) as running:
        yield running


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            proxy: ProviderProxy) -> Iterator[Service]:
    """A service of this module's own, provider_a behind the proxy: the tests kill it."""
    svc = proxied_service(request.param, Path(tmp_path_factory.mktemp(f"paygate-card-crash-{request.param}")), proxy)
    yield svc
    stop(svc)


@pytest.fixture(autouse=True)
def clean_proxy(proxy: ProviderProxy, service: Service) -> Iterator[None]:
    with fresh(proxy, service):
        yield


def _kill(service: Service) -> None:
    assert service.process is not None
    service.process.send_signal(signal.SIGKILL)
    service.process.wait(timeout=10)


def crash_during(service: Service, proxy: ProviderProxy, request: tuple[str, str],
                 pay: Callable[[], httpx.Response]) -> None:
    """`pay()` while paygate is killed the moment provider_a has carried out `request` (method, path ending), before
    its answer arrives; then paygate is started again on the same database."""
    method, ending = request
    proxy.breaks = lambda m, path: CRASH if m == method and path.endswith(ending) else PASS
    proxy.crash = lambda: _kill(service)
    with pytest.raises(httpx.HTTPError):
        pay()
    proxy.breaks, proxy.crash = (lambda m, path: PASS), (lambda: None)
    launch(service)


def _token(localstripe: LocalStripe, merchant: dict[str, Any]) -> str:
    return localstripe.tokenize(merchant["provider_a"]["publishable_key"], SUCCEEDS)


def out_at_provider(service: Service, localstripe: LocalStripe, merchant: dict[str, Any],
                    intent_id: str) -> dict[str, Any]:
    """Checks the crash left what it leaves: the card charged at provider_a; at paygate the charge committed before
    the call, Pending and `unconfirmed` (the card may be charged), and the intent as it was. The payment."""
    [charge] = rows(service, "select status, provider_status from charges where payment_intent_id = :i", i=intent_id)
    assert (charge["status"], charge["provider_status"]) == ("Pending", UNCONFIRMED)
    [stored] = rows(service, "select status from payment_intents where id = :i", i=intent_id)
    assert stored["status"] == "RequiresPaymentMethod"
    [paid] = provider_payments(localstripe, merchant, intent_id)
    assert (paid["status"], paid["amount"]) == ("succeeded", 1050)
    return paid


def test_a_card_payment_whose_commit_was_lost_is_recorded_from_the_providers_webhook(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent = new_intent(api)
    crash_during(service, proxy, CONFIRM, lambda: choose_card(api, intent["id"], token=_token(localstripe, merchant)))
    paid = out_at_provider(service, localstripe, merchant, intent["id"])
    deliver(service, merchant, paid)
    seen = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert (seen["status"], seen["payment_method_type"]) == ("Success", "cards")
    [charge] = seen["charges"]
    assert charge["id"] == paid["metadata"]["paygate_charge_id"]
    assert (charge["status"], charge["payment_provider"], charge["provider_a_payload"]["status"]) == (
        "Success", "provider_a", "succeeded")
    assert seen["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}
    assert len(succeeded_events(api, intent["id"])) == 1


def test_after_the_crash_a_retry_is_refused_and_the_one_payment_is_recorded(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    proxy.replays = True
    intent = new_intent(api)
    crash_during(service, proxy, CONFIRM, lambda: choose_card(api, intent["id"], token=_token(localstripe, merchant)))
    paid = out_at_provider(service, localstripe, merchant, intent["id"])
    # No webhook arrives: the shopper, who saw no answer, pays again with the card typed in again. The first payment
    # is out at the provider (or, past its window, found paid): no second attempt.
    again = choose_card(api, intent["id"], token=_token(localstripe, merchant))
    fails(again, 409, "payment_intent_unexpected_state")
    # The read-through asks provider_a once the charge's 45 s window has passed.
    done = wait_for(api, intent["id"], lambda i: i["status"] == "Success", seconds=90)
    assert [c["id"] for c in done["charges"]] == [paid["metadata"]["paygate_charge_id"]]
    assert [(p["id"], p["status"]) for p in provider_payments(localstripe, merchant, intent["id"])] == [
        (paid["id"], "succeeded")]


def test_a_saved_card_payment_whose_commit_was_lost_is_recorded_under_its_key(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    ann = ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))
    chose_card(api, new_intent(api, customer=ann["id"])["id"], save_payment_method=True,
               token=_token(localstripe, merchant))
    [pm] = ok(api.get("/v1/customers/payment_methods", params={"customer_id": ann["id"]}))["payment_methods"]
    intent = new_intent(api, customer=ann["id"])
    crash_during(service, proxy, OFF_SESSION, lambda: choose_card(api, intent["id"], payment_method_id=pm["id"]))
    paid = out_at_provider(service, localstripe, merchant, intent["id"])
    deliver(service, merchant, paid)
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["status"] == "Success"
    # The charge's id and key are the lost call's, so a retry under that key finds it instead of paying again.
    key = f"saved-{intent['id']}-{pm['id']}-0"
    assert rows(service, "select id, idempotency_key, saved_payment_method_id, status from charges "
                         "where payment_intent_id = :i", i=intent["id"]) == [
        {"id": keyed_charge_id(intent["id"], key), "idempotency_key": key, "saved_payment_method_id": pm["id"],
         "status": "Success"}]
