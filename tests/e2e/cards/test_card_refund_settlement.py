"""A card refund is Success only once provider_a says `succeeded`: one it answers `pending` (the card's bank has not
settled it) is Processing, its amount held, and the scheduler reads it back until it succeeds (the intent's refunded
amount then counts it) or fails (its amount refundable again). localstripe settles every refund at once, so a proxy
shows paygate the `pending` or `failed` answer a real provider may give."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from paygate.v1 import refunds_pb2 as pb

from server.cards import refunds as card_refunds
from server.context import Caller
from server.db import Database
from server.runtime import Runtime
from tests.conftest import fails, ok
from tests.e2e.cards.provider_proxy import ProviderProxy, provider_proxy
from tests.e2e.cards.test_card_refund_retries import in_service, paid_by_card, provider_refunds
from tests.harness import Service
from tests.localstripe import LocalStripe


@pytest.fixture
def proxy(localstripe: LocalStripe) -> Iterator[ProviderProxy]:
    with provider_proxy(localstripe.url) as running:
        yield running


def refunds_answered(status: str) -> Any:
    """A rewrite: every refund provider_a answers (created, or listed when read back) shows `status`."""
    def rewrite(method: str, path: str, answer: Any) -> Any:
        if path.startswith("/v1/refunds"):
            for refund in answer.get("data", [answer]):
                refund["status"] = status
        return answer

    return rewrite


def refund_through(service: Service, merchant: dict[str, Any], proxy: ProviderProxy, intent_id: str,
                   amount: str) -> str:
    caller = Caller(merchant_id=merchant["merchant_id"], livemode=False, key_kind="secret")

    async def create(db: Database, rt: Runtime) -> str:
        request = pb.CreateRefundRequest(payment_intent_id=intent_id, amount=amount)
        found = await card_refunds.card_charges_to_refund(db, caller, request)
        assert found is not None
        return (await card_refunds.create(db, rt, rt.cards, rt.tasks, caller, request, found)).id

    return in_service(service, create, api_base=proxy.url)


def retry_through(service: Service, proxy: ProviderProxy) -> int:
    async def retry(db: Database, rt: Runtime) -> int:
        return await card_refunds.retry_pending(db, rt, rt.cards,
                                                now=rt.clock.now() + card_refunds.RETRY_AFTER_SECONDS + 1)

    return in_service(service, retry, api_base=proxy.url)


def answered_pending(service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
                     proxy: ProviderProxy, amount: str) -> tuple[dict[str, Any], str]:
    """An intent paid by card (10 USD) and a refund of `amount` that provider_a answered `pending`: its id."""
    intent = paid_by_card(api, merchant, localstripe)
    proxy.rewrite = refunds_answered("pending")
    return intent, refund_through(service, merchant, proxy, intent["id"], amount)


def refunded(api: httpx.Client, intent_id: str) -> str:
    return str(ok(api.get(f"/v1/payment_intents/{intent_id}"))["payment_details"]["amount_refunded"]["amount"])


def test_a_card_refund_the_provider_answers_pending_is_processing_with_its_amount_held(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, refund_id = answered_pending(service, api, merchant, localstripe, proxy, "10")
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Processing"
    assert refunded(api, intent["id"]) == "0"
    fails(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "0.01"}), 400,
          "refund_amount_exceeded", "amount")


def test_a_processing_card_refund_is_success_once_the_provider_settles_it(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, refund_id = answered_pending(service, api, merchant, localstripe, proxy, "4")
    proxy.rewrite = None  # localstripe's own answer: succeeded
    assert retry_through(service, proxy) >= 1
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Success"
    assert refunded(api, intent["id"]) == "4"
    assert provider_refunds(localstripe, merchant, intent) == [400]  # read back, never asked for twice


def test_a_processing_card_refund_the_provider_fails_frees_its_amount(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, refund_id = answered_pending(service, api, merchant, localstripe, proxy, "10")
    proxy.rewrite = refunds_answered("failed")
    retry_through(service, proxy)
    got = ok(api.get(f"/v1/refunds/{refund_id}"))
    assert (got["status"], got["failure_reason"]) == ("Failed", "provider_refused")
    assert refunded(api, intent["id"]) == "0"
    ok(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "10"}))


def test_a_processing_card_refund_still_pending_is_asked_again_later(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent, refund_id = answered_pending(service, api, merchant, localstripe, proxy, "3")
    assert retry_through(service, proxy) >= 1
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Processing"
    assert provider_refunds(localstripe, merchant, intent) == [300]
