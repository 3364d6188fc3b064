"""A card refund provider_a did not answer is never failed (it may have been paid) and never paid twice: it stays
Pending with its amount held, and the scheduler's retry adopts the refund provider_a made or asks for it again."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
from paygate.v1 import refunds_pb2 as pb

from server.cards import refunds as card_refunds
from server.config import load_settings
from server.db import Database
from server.rails.provider_a import ProviderARail
from server.refunds.models import Refund
from server.rpc.context import Caller
from server.runtime import Runtime
from tests.conftest import fails, ok
from tests.e2e.cards.support import SUCCEEDS, chose_card, new_intent
from tests.harness import Service, free_port
from tests.localstripe import LocalStripe

T = TypeVar("T")


def in_service(service: Service, fn: Callable[[Database, Runtime], Awaitable[T]], *, provider_down: bool = False) -> T:
    """Runs `fn` against the service's own database; with `provider_down`, provider_a's address answers nothing."""
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})

    async def run() -> T:
        db = Database(settings.database_url)
        rt = Runtime.build(settings, db=db, var_dir=service.workdir)
        if provider_down:
            rt = dataclasses.replace(rt, cards=dataclasses.replace(
                rt.cards, rails={"provider_a": ProviderARail(f"http://127.0.0.1:{free_port()}")}))
        try:
            return await fn(db, rt)
        finally:
            await db.close()

    return asyncio.run(run())


def paid_by_card(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> dict[str, Any]:
    intent = new_intent(api, amount="10")
    return chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                    SUCCEEDS))


def refund_while_provider_down(service: Service, merchant: dict[str, Any], intent_id: str, amount: str) -> str:
    caller = Caller(merchant_id=merchant["merchant_id"], livemode=False, key_kind="secret")

    async def create(db: Database, rt: Runtime) -> str:
        found = await card_refunds.paid_card_charge(db, caller, intent_id)
        assert found is not None
        refund = await card_refunds.create(db, rt, rt.cards, rt.tasks, caller,
                                           pb.CreateRefundRequest(payment_intent_id=intent_id, amount=amount), found)
        assert refund.status == "Pending" and len(rt.tasks.running) == 1
        await rt.tasks.close(60)  # the first try, the create call's background task, ends unanswered
        return refund.id

    return in_service(service, create, provider_down=True)


def retry_later(service: Service) -> int:
    async def retry(db: Database, rt: Runtime) -> int:
        return await card_refunds.retry_pending(db, rt, rt.cards,
                                                now=rt.clock.now() + card_refunds.RETRY_AFTER_SECONDS + 1)

    return in_service(service, retry)


def provider_refunds(localstripe: LocalStripe, merchant: dict[str, Any], intent: dict[str, Any]) -> list[int]:
    payment = intent["charges"][0]["provider_a_payload"]["client_secret"].split("_secret_")[0]
    found = localstripe.get(f"/v1/refunds?payment_intent={payment}", merchant["provider_a"]["secret_key"])
    return [r["amount"] for r in found["data"]]


def test_an_unanswered_card_refund_stays_pending_with_its_amount_held(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    refund_id = refund_while_provider_down(service, merchant, intent["id"], "10")
    got = ok(api.get(f"/v1/refunds/{refund_id}"))
    assert got["status"] == "Pending"
    fails(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "0.01"}), 400,
          "refund_amount_exceeded", "amount")
    assert provider_refunds(localstripe, merchant, intent) == []


def test_the_scheduler_sends_an_unanswered_card_refund_again(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    refund_id = refund_while_provider_down(service, merchant, intent["id"], "4")
    assert retry_later(service) >= 1
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Success"
    assert provider_refunds(localstripe, merchant, intent) == [400]
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["payment_details"]["amount_refunded"] == {
        "asset_id": "USD", "amount": "4"}


def test_a_refund_made_but_not_answered_is_adopted_not_made_twice(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    refund_id = refund_while_provider_down(service, merchant, intent["id"], "3")

    async def made_but_lost(db: Database, rt: Runtime) -> None:
        # provider_a made the refund; its answer never reached paygate (the row is still Pending)
        async with db.read() as session:
            charge_id = (await session.get(Refund, refund_id)).charge_id  # type: ignore[union-attr]
        payment = intent["charges"][0]["provider_a_payload"]["client_secret"].split("_secret_")[0]
        assert charge_id == intent["charges"][0]["id"]
        await rt.cards.rails["provider_a"].client(merchant["provider_a"]["secret_key"]).refund(
            payment_id=payment, amount=300, metadata={"paygate_refund_id": refund_id}, idempotency_key=refund_id)

    in_service(service, made_but_lost)
    retry_later(service)
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Success"
    assert provider_refunds(localstripe, merchant, intent) == [300]  # adopted, not made twice
    assert retry_later(service) == 0
