"""A scheduler SIGKILLed in the middle of a renewal sweep of card subscriptions, then restarted: each cycle gets one
invoice and each invoice one successful charge (DESIGN §8: at most one invoice per subscription and cycle, whatever
crashes; an interrupted attempt is made again under the same idempotency key). Real `paygate serve --only
scheduler` processes, PostgreSQL, localstripe as provider_a.

What this cannot show: localstripe ignores idempotency keys, so an attempt killed between the provider's answer and
our commit would be charged twice *at localstripe* (real provider_a answers the same key once). The assertions are
on what paygate recorded: one invoice per cycle, one successful charge per invoice, no failed attempt."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from server.db import Database
from server.ids import new_id
from server.subscriptions.models import Subscription
from tests.e2e.cards.conftest import card_keys
from tests.e2e.cards.support import SUCCEEDS
from tests.e2e.payment_intents.test_expiry_processes import SchedulerProcess, wait_started
from tests.e2e.subscriptions.support import DAY, buy, club, customer, subscription, wait_for
from tests.e2e.subscriptions.test_card_renewals import pay_by_card
from tests.harness import TLS, Service, start, stop
from tests.localstripe import LocalStripe, start_localstripe, stop_localstripe

DUE = 200


@pytest.fixture(scope="module")
def localstripe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStripe]:
    ls = start_localstripe(Path(tmp_path_factory.mktemp("localstripe-crash")))
    yield ls
    stop_localstripe(ls)


@pytest.fixture(scope="module")
def api_service(tmp_path_factory: pytest.TempPathFactory, localstripe: LocalStripe) -> Iterator[Service]:
    """PostgreSQL, no scheduler of its own: the test's scheduler processes are the only ones renewing."""
    svc = start("postgresql", Path(tmp_path_factory.mktemp("paygate-renewal-crash")), only=("http", "grpc"),
                extra_env={"PAYGATE_PROVIDER_A_API_BASE": localstripe.url})
    yield svc
    stop(svc)


@pytest.fixture
def schedulers(api_service: Service) -> Iterator[list[SchedulerProcess]]:
    started: list[SchedulerProcess] = []
    yield started
    for s in started:
        s.stop()


def card_subscription(service: Service, localstripe: LocalStripe) -> tuple[dict[str, Any], dict[str, Any]]:
    """One monthly subscription paid by a saved card through /v1; the catalogue and the subscription."""
    merchant = service.create_merchant("Coffee club")
    pk = card_keys(service, merchant["merchant_id"])["publishable_key"]
    with httpx.Client(base_url=service.http_url, auth=(merchant["test"]["secret_key"], ""), timeout=60,
                      verify=TLS) as shop:
        c, who = club(shop), customer(shop)
        intent = buy(shop, c, who)
        pay_by_card(shop, intent["id"], localstripe.tokenize(pk, SUCCEEDS))
        sub = wait_for(lambda: subscription(shop, intent["subscription"]), lambda s: s["status"] == "active")
    return c, sub


def seed(service: Service, model: dict[str, Any], count: int) -> list[str]:
    """`count` card subscriptions like `model` (same customer and saved card) whose period ended a minute ago."""
    async def insert() -> list[str]:
        db = Database(service.database_url)
        now = db.clock.now()
        start_, end = now - 31 * DAY, now - 60
        rows = [Subscription(id=new_id("sub"), merchant_id=model["merchant_id"], livemode=False,
                             customer_id=model["customer_id"], product_id=model["product_id"],
                             variant_id=model["variant_id"], selling_plan_id=model["selling_plan_id"],
                             currency="USD", status="active", collection_method="charge_automatically",
                             default_payment_method_id=model["default_payment_method_id"],
                             default_payment_method_type="cards", billing_cycle_anchor=start_,
                             current_period_start=start_, current_period_end=end, current_cycle_number=1,
                             renew_at=end, due_at=end, notified_for=end, created_at=start_, updated_at=start_)
                for _ in range(count)]
        try:
            async with db.transaction() as s:
                s.add_all(rows)
        finally:
            await db.close()
        return [r.id for r in rows]
    return asyncio.run(insert())


def query(service: Service, sql: str, ids: list[str]) -> list[tuple[Any, ...]]:
    async def run() -> list[tuple[Any, ...]]:
        db = Database(service.database_url)
        try:
            async with db.read() as s:
                return [tuple(r) for r in (await s.exec(sa.text(sql).bindparams(  # type: ignore[call-overload]
                    sa.bindparam("ids", expanding=True)), params={"ids": ids}))]
        finally:
            await db.close()
    return asyncio.run(run())


def paid_renewals(service: Service, ids: list[str]) -> int:
    return int(query(service, "SELECT count(*) FROM invoices WHERE subscription_id IN :ids AND cycle_number = 2 "
                              "AND status = 'paid'", ids)[0][0])


@pytest.mark.timeout(600)
def test_a_scheduler_killed_mid_sweep_and_restarted_invoices_and_charges_each_cycle_once(
        api_service: Service, localstripe: LocalStripe, schedulers: list[SchedulerProcess], tmp_path: Path) -> None:
    _, model = card_subscription(api_service, localstripe)
    ids = seed(api_service, model, DUE)
    first = SchedulerProcess(api_service, tmp_path)
    schedulers.append(first)
    wait_started([first])
    deadline = time.monotonic() + 240
    while paid_renewals(api_service, ids) < DUE // 10:
        assert time.monotonic() < deadline, "the first scheduler renewed nothing"
        time.sleep(0.05)
    first.process.send_signal(signal.SIGKILL)  # mid-sweep: no shutdown, whatever was in flight is lost
    first.process.wait(timeout=10)
    at_kill = paid_renewals(api_service, ids)
    assert at_kill < DUE, "the sweep was over before the kill"
    second = SchedulerProcess(api_service, tmp_path)
    schedulers.append(second)
    wait_started([second])
    deadline = time.monotonic() + 300  # an attempt cut short waits out its lease (60 s)
    while paid_renewals(api_service, ids) < DUE:
        assert time.monotonic() < deadline, f"renewed {paid_renewals(api_service, ids)} of {DUE}"
        time.sleep(1)
    time.sleep(6)  # one more pass: a second invoice or charge would show now
    second.stop()
    per_cycle = query(api_service, "SELECT subscription_id, cycle_number, count(*) FROM invoices "
                                   "WHERE subscription_id IN :ids GROUP BY subscription_id, cycle_number", ids)
    assert sorted((n, c) for _, n, c in per_cycle) == [(2, 1)] * DUE
    charges = query(api_service, "SELECT i.id, ch.status, ch.idempotency_key FROM invoices i "
                                 "JOIN charges ch ON ch.payment_intent_id = i.payment_intent_id "
                                 "WHERE i.subscription_id IN :ids", ids)
    assert sorted(status for _, status, _ in charges) == ["Success"] * DUE
    assert {key for _, _, key in charges} == {f"{inv}-1" for inv, _, _ in charges}
    subs = query(api_service, "SELECT status, current_cycle_number, current_period_start FROM subscriptions "
                              "WHERE id IN :ids", ids)
    assert {s[:2] for s in subs} == {("active", 2)}
