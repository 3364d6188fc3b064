"""The scheduler's pass over provider_a's recent payments (DESIGN §9, server/cards/recovery.py `sweep`): a card payment
whose charge row was never committed is recorded even when no webhook about it ever arrives (a merchant without one
configured), through the same `recovery.adopt` as the webhook's, so it credits only what the webhook would.

No webhook is registered at localstripe here, so the pass is the only way paygate can learn of these payments. The
job runs in-process as the scheduler composes it (`run_job`), its clock moved ahead where a test needs it. This module
has a localstripe of its own, behind the proxy that kills paygate after the provider charged the card
(tests/e2e/cards/provider_proxy.py): localstripe shows every key one shared account, so a fresh one keeps the other
modules' payments out of these passes.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.boot.cli import set_card_provider
from server.cards import accounts, recovery
from server.config import load_settings
from server.db import Database
from server.ids import new_id
from server.runtime import Runtime
from tests.conftest import ok
from tests.e2e.cards.provider_proxy import ProviderProxy, fresh, provider_proxy, proxied_service
from tests.e2e.cards.support import choose_card, new_intent, paid_at_provider, provider_payments, rows
from tests.e2e.cards.test_card_refund_retries import in_service, run_job
from tests.e2e.cards.test_crash_before_commit import CONFIRM, _token, crash_during, out_at_provider
from tests.e2e.cards.test_unrecorded_provider_payments import ids_of, recorded, succeeded_events
from tests.harness import Service, stop
from tests.localstripe import LocalStripe, start_localstripe, stop_localstripe

pytestmark = pytest.mark.timeout(300)  # the crash test kills paygate and starts it again

JOB = "recover_card_payments"


@pytest.fixture(scope="module")
def localstripe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStripe]:
    ls = start_localstripe(Path(tmp_path_factory.mktemp("localstripe-recovery")))
    yield ls
    stop_localstripe(ls)


@pytest.fixture(scope="module")
def proxy(localstripe: LocalStripe) -> Iterator[ProviderProxy]:
    with provider_proxy(localstripe.url) as running:
        yield running


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            proxy: ProviderProxy) -> Iterator[Service]:
    svc = proxied_service(request.param, Path(tmp_path_factory.mktemp(f"paygate-card-recovery-{request.param}")), proxy)
    yield svc
    stop(svc)


@pytest.fixture
def other_merchant(service: Service) -> dict[str, Any]:
    """Another merchant, without provider_a keys: with keys of its own, localstripe would show it our merchant's
    payments too (one shared account), which Stripe never does."""
    return service.create_merchant("Another merchant")


@pytest.fixture(autouse=True)
def clean_proxy(proxy: ProviderProxy, service: Service) -> Iterator[None]:
    with fresh(proxy, service):
        yield


def charges_of(service: Service, intent_id: str) -> list[dict[str, Any]]:
    return rows(service, "select id, status, provider_payment_id from charges where payment_intent_id = :i",
                i=intent_id)


def test_a_card_payment_whose_commit_was_lost_is_recorded_by_the_scheduled_pass_without_a_webhook(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        proxy: ProviderProxy) -> None:
    intent = new_intent(api)
    crash_during(service, proxy, CONFIRM, lambda: choose_card(api, intent["id"], token=_token(localstripe, merchant)))
    paid = out_at_provider(service, localstripe, merchant, intent["id"])
    run_job(service, JOB)
    seen = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert (seen["status"], seen["payment_method_type"]) == ("Success", "cards")
    [charge] = seen["charges"]
    assert (charge["id"], charge["status"], charge["payment_provider"]) == (
        paid["metadata"]["paygate_charge_id"], "Success", "provider_a")
    assert seen["payment_details"]["amount_captured"] == {"asset_id": "USD", "amount": "10.5"}
    run_job(service, JOB)  # the next pass finds it recorded
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}")) == seen
    assert len(succeeded_events(api, intent["id"])) == 1


def test_two_passes_at_once_record_a_payment_once(service: Service, api: httpx.Client, merchant: dict[str, Any],
                                                  localstripe: LocalStripe) -> None:
    """Several scheduler processes may run the job at the same moment."""
    intent = new_intent(api)
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd",
                            metadata=ids_of(merchant["merchant_id"], intent["id"]))

    async def twice(db: Database, rt: Runtime) -> None:
        [job] = [j for j in rt.jobs if j.name == JOB]
        await asyncio.gather(job.run(rt), job.run(rt))

    in_service(service, twice)
    assert charges_of(service, intent["id"]) == [
        {"id": paid["metadata"]["paygate_charge_id"], "status": "Success", "provider_payment_id": paid["id"]}]
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["status"] == "Success"
    assert len(succeeded_events(api, intent["id"])) == 1


@pytest.mark.parametrize(("amount", "currency"), [(1049, "usd"), (1050, "eur")])
def test_a_payment_of_another_amount_than_its_intent_is_not_credited_by_the_pass(
        amount: int, currency: str, service: Service, api: httpx.Client, merchant: dict[str, Any],
        localstripe: LocalStripe, caplog: pytest.LogCaptureFixture) -> None:
    intent = new_intent(api)  # 10.50 USD
    paid = paid_at_provider(localstripe, merchant, amount=amount, currency=currency,
                            metadata=ids_of(merchant["merchant_id"], intent["id"]))
    with caplog.at_level(logging.ERROR, logger="paygate.cards"):
        run_job(service, JOB)
    seen = ok(api.get(f"/v1/payment_intents/{intent['id']}"))
    assert (seen["status"], seen["charges"]) == ("RequiresPaymentMethod", [])
    assert recorded(service, paid) == []
    assert [r for r in caplog.records if getattr(r, "provider_payment", None) == paid["id"]
            and r.levelno == logging.ERROR]


def test_a_payment_not_credited_is_reported_once_not_on_every_pass(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        caplog: pytest.LogCaptureFixture) -> None:
    """The pass finds it again every 5 minutes for a day: the operator is told once (per scheduler process)."""
    intent = new_intent(api)  # 10.50 USD
    paid = paid_at_provider(localstripe, merchant, amount=999, currency="usd",
                            metadata=ids_of(merchant["merchant_id"], intent["id"]))
    with caplog.at_level(logging.DEBUG, logger="paygate.cards"):
        for _ in range(3):
            run_job(service, JOB)
    levels = [r.levelno for r in caplog.records if getattr(r, "provider_payment", None) == paid["id"]]
    assert levels == [logging.ERROR, logging.DEBUG, logging.DEBUG]
    assert recorded(service, paid) == []


@pytest.mark.parametrize("named_merchant", ["theirs", "ours"])
def test_a_payment_naming_another_merchants_intent_is_not_credited_by_the_pass(
        named_merchant: str, service: Service, merchant: dict[str, Any], other_api: httpx.Client,
        other_merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    theirs = new_intent(other_api)
    who = (other_merchant if named_merchant == "theirs" else merchant)["merchant_id"]
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd", metadata=ids_of(who, theirs["id"]))
    run_job(service, JOB)
    seen = ok(other_api.get(f"/v1/payment_intents/{theirs['id']}"))
    assert (seen["status"], seen["charges"]) == ("RequiresPaymentMethod", [])
    assert recorded(service, paid) == []


def test_a_merchant_whose_provider_refuses_the_list_is_passed_over_and_the_others_are_swept(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe,
        caplog: pytest.LogCaptureFixture) -> None:
    refused = service.create_merchant("Refused merchant")
    # A restricted key (`rk_test_…`) is a valid provider_a key for paygate; localstripe answers 401 to it.
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})
    asyncio.run(set_card_provider(settings, refused["merchant_id"], False, f"rk_test_{secrets.token_hex(12)}",
                                  f"pk_test_{secrets.token_hex(12)}", ""))
    intent = new_intent(api)
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd",
                            metadata=ids_of(merchant["merchant_id"], intent["id"]))
    with caplog.at_level(logging.WARNING, logger="paygate.cards"):
        run_job(service, JOB)
    assert [c["provider_payment_id"] for c in charges_of(service, intent["id"])] == [paid["id"]]
    assert [r for r in caplog.records if getattr(r, "merchant", None) == refused["merchant_id"]
            and r.levelno == logging.WARNING]


def test_a_payment_naming_no_intent_is_not_credited_by_the_pass(service: Service, merchant: dict[str, Any],
                                                                 localstripe: LocalStripe) -> None:
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd",
                            metadata=ids_of(merchant["merchant_id"], new_id("pi")))
    run_job(service, JOB)
    assert recorded(service, paid) == []


def test_a_payment_made_before_the_window_is_neither_listed_nor_recorded(
        service: Service, api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe) -> None:
    intent = new_intent(api)
    paid = paid_at_provider(localstripe, merchant, amount=1050, currency="usd",
                            metadata=ids_of(merchant["merchant_id"], intent["id"]))

    def listed(since: int) -> list[str]:
        async def run(db: Database, rt: Runtime) -> list[str]:
            async with db.read() as session:
                acct = await accounts.account(session, rt.cards, merchant["merchant_id"], False)
            assert acct is not None
            return [p.id for p in await acct.client.recent_payments(since=since, limit=recovery.MOST_PER_ACCOUNT)]
        return in_service(service, run)

    # localstripe refuses provider_a's `created` filter: what it lists is filtered by paygate itself.
    assert paid["id"] in listed(paid["created"])
    assert paid["id"] not in listed(paid["created"] + 1)
    run_job(service, JOB, later=recovery.WINDOW_SECONDS + 5)  # a pass a day later: the payment is too old for it
    assert recorded(service, paid) == []
    assert ok(api.get(f"/v1/payment_intents/{intent['id']}"))["charges"] == []
    run_job(service, JOB)  # while it is in the window, it is recorded
    assert [c["provider_payment_id"] for c in charges_of(service, intent["id"])] == [paid["id"]]
    assert [p["status"] for p in provider_payments(localstripe, merchant, intent["id"])] == ["succeeded"]
