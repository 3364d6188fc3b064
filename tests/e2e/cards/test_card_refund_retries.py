"""A card refund provider_a did not answer is never failed (it may have been paid) and never paid twice: it stays
Pending with its amount held, and the scheduler's retry adopts the refund provider_a made or asks for it again. The
create call answers Pending and asks provider_a afterwards, in a background task: a process that dies between the
two leaves a refund never tried, which the scheduler's job sends once it is `RETRY_AFTER_SECONDS` old."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest
from paygate.v1 import refunds_pb2 as pb

from server.boot.composition import compose
from server.cards import refunds as card_refunds
from server.config import load_settings
from server.context import Caller
from server.db import Database
from server.rails.provider_a import ProviderARail
from server.refunds.models import Refund
from server.runtime import Runtime
from tests.clock import SetClock
from tests.conftest import fails, ok
from tests.e2e.cards.support import SUCCEEDS, chose_card, new_intent
from tests.harness import Service, free_port
from tests.localstripe import LocalStripe

T = TypeVar("T")


def in_service(service: Service, fn: Callable[[Database, Runtime], Awaitable[T]], *, provider_down: bool = False,
               later: int = 0, api_base: str = "") -> T:
    """Runs `fn` against the service's own database, in a runtime composed like the service's (its jobs too) whose
    clock is `later` seconds ahead; with `provider_down`, provider_a's address answers nothing; with `api_base`,
    provider_a is reached there (a proxy). The work `fn` started in the background (`rt.tasks`) is waited for
    before the database closes."""
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})

    async def run() -> T:
        clock = SetClock()
        if later:
            clock.at(clock.now() + later)
        db = Database(settings.database_url, clock=clock)
        rt = compose(settings, db=db, var_dir=service.workdir, clock=clock)
        if provider_down or api_base:
            rt = dataclasses.replace(rt, cards=dataclasses.replace(rt.cards, rails={
                "provider_a": ProviderARail(api_base or f"http://127.0.0.1:{free_port()}")}))
        try:
            return await fn(db, rt)
        finally:
            await rt.tasks.close(60)
            await db.close()

    return asyncio.run(run())


def paid_by_card(api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> dict[str, Any]:
    intent = new_intent(api, amount="10")
    return chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                    SUCCEEDS))


def refund_while_provider_down(service: Service, merchant: dict[str, Any], intent_id: str, amount: str) -> str:
    """A refund created (Pending) whose first try, the create call's background task, finds provider_a down."""
    caller = Caller(merchant_id=merchant["merchant_id"], livemode=False, key_kind="secret")

    async def create(db: Database, rt: Runtime) -> str:
        request = pb.CreateRefundRequest(payment_intent_id=intent_id, amount=amount)
        found = await card_refunds.card_charges_to_refund(db, caller, request)
        assert found is not None
        refund = await card_refunds.create(db, rt, rt.cards, rt.tasks, caller, request, found)
        assert refund.status == "Pending" and len(rt.tasks.running) == 1
        await rt.tasks.close(60)  # the try ends unanswered
        return refund.id

    return in_service(service, create, provider_down=True)


def retry_later(service: Service) -> int:
    async def retry(db: Database, rt: Runtime) -> int:
        return await card_refunds.retry_pending(db, rt, rt.cards,
                                                now=rt.clock.now() + card_refunds.RETRY_AFTER_SECONDS + 1)

    return in_service(service, retry)


# A process that commits a card refund and dies before its background try starts (os._exit: no cleanup at all).
CREATE_THEN_DIE = textwrap.dedent("""
    import asyncio, os, sys
    from pathlib import Path

    from paygate.v1 import refunds_pb2 as pb

    from server.cards import refunds as card_refunds
    from server.boot.composition import compose
    from server.config import load_settings
    from server.context import Caller

    async def main() -> None:
        merchant_id, intent_id, amount, var_dir = sys.argv[1:]
        settings = load_settings({k: v for k, v in os.environ.items() if k.startswith("PAYGATE_")})
        rt = compose(settings, var_dir=Path(var_dir))
        caller = Caller(merchant_id=merchant_id, livemode=False, key_kind="secret")
        request = pb.CreateRefundRequest(payment_intent_id=intent_id, amount=amount)
        found = await card_refunds.card_charges_to_refund(rt.db, caller, request)
        assert found is not None
        refund = await card_refunds.create(rt.db, rt, rt.cards, rt.tasks, caller, request, found)
        print(refund.id, refund.status, len(rt.tasks.running), flush=True)
        os._exit(0)

    asyncio.run(main())
""")


def created_then_died(service: Service, merchant: dict[str, Any], intent_id: str, amount: str) -> str:
    done = subprocess.run([sys.executable, "-c", CREATE_THEN_DIE, merchant["merchant_id"], intent_id, amount,
                           str(service.workdir)], env=service.env, cwd=service.workdir, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    refund_id, status, in_flight = done.stdout.split()
    assert (status, in_flight) == ("Pending", "1")  # committed, its try started but not run when the process died
    return refund_id


def run_job(service: Service, name: str, *, later: int = 0) -> None:
    """One run of the scheduler job `name`, as registered in the service's composition, `later` seconds ahead."""
    async def run(db: Database, rt: Runtime) -> None:
        [job] = [j for j in rt.jobs if j.name == name]
        await job.run(rt)

    in_service(service, run, later=later)


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


def test_a_card_refund_never_tried_because_its_process_died_is_sent_by_the_job(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    refund_id = created_then_died(service, merchant, intent["id"], "5")
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Pending"
    assert provider_refunds(localstripe, merchant, intent) == []  # the provider was never asked
    fails(api.post("/v1/refunds", json={"payment_intent_id": intent["id"], "amount": "5.01"}), 400,
          "refund_amount_exceeded", "amount")  # its amount is held meanwhile
    run_job(service, "retry_card_refunds")  # not yet: the job waits RETRY_AFTER_SECONDS from its creation
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Pending"
    assert provider_refunds(localstripe, merchant, intent) == []
    run_job(service, "retry_card_refunds", later=card_refunds.RETRY_AFTER_SECONDS + 1)
    done = ok(api.get(f"/v1/refunds/{refund_id}"))
    assert done["status"] == "Success"
    assert provider_refunds(localstripe, merchant, intent) == [500]
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["payment_details"]["amount_refunded"] == {
        "asset_id": "USD", "amount": "5"}
    events = ok(api.get("/v1/events", params={"page_size": 100}))["events"]  # newest first
    assert [e["type"] for e in reversed(events) if e["type"].startswith("refund.")
            and e["data"]["object"]["id"] == refund_id] == [
        "refund.created", "refund.updated", "refund.updated", "refund.succeeded"]
    run_job(service, "retry_card_refunds", later=card_refunds.RETRY_AFTER_SECONDS + 1)  # done: nothing more
    assert provider_refunds(localstripe, merchant, intent) == [500]


def unanswered_try(service: Service, *, later: int) -> None:
    """One run of the retry job `later` seconds ahead, with provider_a answering nothing."""
    async def retry(db: Database, rt: Runtime) -> None:
        await card_refunds.retry_pending(db, rt, rt.cards, now=rt.clock.now())

    in_service(service, retry, provider_down=True, later=later)


def last_try(service: Service, refund_id: str) -> tuple[int, int]:
    """The refund's (created, updated): `updated` is its last try."""
    async def read(db: Database, rt: Runtime) -> tuple[int, int]:
        async with db.read() as session:
            refund = await session.get(Refund, refund_id)
            assert refund is not None
            return refund.created, refund.updated

    return in_service(service, read)


HOURS_2 = 7200


def test_a_card_refund_left_unanswered_for_hours_is_tried_less_often_and_never_given_up(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    refund_id = refund_while_provider_down(service, merchant, intent["id"], "2")
    created, _ = last_try(service, refund_id)
    unanswered_try(service, later=HOURS_2)
    _, tried = last_try(service, refund_id)
    assert tried >= created + HOURS_2
    # Two hours old: the next try waits a tenth of that, at most RETRY_AT_MOST_SECONDS, not RETRY_AFTER_SECONDS.
    unanswered_try(service, later=HOURS_2 + card_refunds.RETRY_AFTER_SECONDS + 5)
    assert last_try(service, refund_id)[1] == tried
    unanswered_try(service, later=HOURS_2 + card_refunds.RETRY_AT_MOST_SECONDS + 5)
    assert last_try(service, refund_id)[1] > tried
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Pending"
    run_job(service, "retry_card_refunds", later=HOURS_2 + 2 * card_refunds.RETRY_AT_MOST_SECONDS + 10)
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Success"
    assert provider_refunds(localstripe, merchant, intent) == [200]


def test_a_card_refund_unanswered_for_over_an_hour_is_logged_as_an_error_for_the_operator(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        caplog: pytest.LogCaptureFixture) -> None:
    intent = paid_by_card(api, merchant, localstripe)
    with caplog.at_level(logging.WARNING, logger="paygate.cards"):
        refund_id = refund_while_provider_down(service, merchant, intent["id"], "1")
        unanswered_try(service, later=card_refunds.ALERT_AFTER_SECONDS - card_refunds.RETRY_AT_MOST_SECONDS)
        unanswered_try(service, later=card_refunds.ALERT_AFTER_SECONDS + card_refunds.RETRY_AT_MOST_SECONDS)
    mine = [r for r in caplog.records if r.__dict__.get("refund") == refund_id]
    assert [r.levelname for r in mine] == ["WARNING", "WARNING", "ERROR"]
    alert = mine[-1].__dict__
    assert alert["age_seconds"] >= card_refunds.ALERT_AFTER_SECONDS and alert["merchant"] == merchant["merchant_id"]
    settled = card_refunds.ALERT_AFTER_SECONDS + 3 * card_refunds.RETRY_AT_MOST_SECONDS
    run_job(service, "retry_card_refunds", later=settled)
    assert ok(api.get(f"/v1/refunds/{refund_id}"))["status"] == "Success"
