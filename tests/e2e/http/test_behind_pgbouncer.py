"""PostgreSQL behind PgBouncer in transaction mode (`database_transaction_pooling = true`): every server connection
serves whichever client's transaction comes next, so no statement is prepared on one and run on another, and a
unit of work's pipelined BEGIN … COMMIT is one transaction to the pooler. The service runs its API, its jobs and
its webhook deliveries through a pooler that has fewer server connections than paygate's pools have clients."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import fails, http_client, ok
from tests.e2e.webhooks.receiver import Receiver, running
from tests.harness import Service, migrated_database, start, stop
from tests.pgbouncer import PgBouncer, pgbouncer

THREADS = 8
ROUNDS = 12  # psycopg would prepare a statement on its sixth run: each statement runs well past that


@pytest.fixture(scope="module")
def bouncer() -> Iterator[PgBouncer]:
    with pgbouncer() as running_bouncer:
        yield running_bouncer


@pytest.fixture(scope="module")
def pooled(bouncer: PgBouncer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    workdir = Path(tmp_path_factory.mktemp("paygate-pgbouncer"))
    for url in migrated_database("postgresql", workdir / "db"):
        service = start("postgresql", workdir / "service", extra_env={
            "PAYGATE_DATABASE_URL": bouncer.url(url), "PAYGATE_DATABASE_TRANSACTION_POOLING": "true"})
        try:
            yield service
        finally:
            stop(service)


@pytest.fixture
def pooled_api(pooled: Service) -> Iterator[httpx.Client]:
    merchant = pooled.create_merchant()
    with http_client(pooled, merchant["test"]["secret_key"]) as client:
        yield client


def problems(service: Service) -> list[str]:
    """paygate's own log lines above info (a failed statement is logged by the RPC layer as an error, a lost
    database as a warning): none while the pooler serves it. The scheduler library's notes on a loaded machine (a
    job run skipped while the last one still ran) are not about the database."""
    lines = []
    for line in service.log().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            lines.append(line[:300])  # not a log record: a traceback or a crash's output
            continue
        if entry.get("level") not in ("info", "debug") and str(entry.get("logger", "")).startswith("paygate"):
            lines.append(line[:300])
    return lines


def test_concurrent_creates_and_gets_through_the_pooler_all_succeed(pooled: Service, pooled_api: httpx.Client
                                                                    ) -> None:
    def one(worker: int) -> list[str]:
        made = []
        for n in range(ROUNDS):
            customer = ok(pooled_api.post("/v1/customers", json={"name": f"Ann {worker}-{n}"}))
            assert ok(pooled_api.get(f"/v1/customers/{customer['id']}"))["name"] == f"Ann {worker}-{n}"
            made.append(customer["id"])
        return made

    with ThreadPoolExecutor(THREADS) as pool:
        made = [cid for ids in pool.map(one, range(THREADS)) for cid in ids]
    assert len(set(made)) == THREADS * ROUNDS
    assert ok(pooled_api.get("/v1/customers", params={"limit": 1}))["total"] == THREADS * ROUNDS
    assert problems(pooled) == []


def test_a_refused_write_through_the_pooler_changes_nothing(pooled: Service, pooled_api: httpx.Client) -> None:
    fails(pooled_api.post("/v1/customers", json={"name": "Ann", "email": "not an address"}), 400,
          "parameter_invalid", "email")
    assert ok(pooled_api.get("/v1/customers"))["total"] == 0
    assert problems(pooled) == []


def test_an_idempotent_retry_through_the_pooler_replays_the_first_answer(pooled_api: httpx.Client) -> None:
    headers = {"Idempotency-Key": f"pooled-{uuid.uuid4()}"}
    first = pooled_api.post("/v1/customers", json={"name": "Ann"}, headers=headers)
    again = pooled_api.post("/v1/customers", json={"name": "Ann"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert ok(pooled_api.get("/v1/customers"))["total"] == 1


def test_events_recorded_through_the_pooler_are_delivered_once_each(pooled: Service, pooled_api: httpx.Client
                                                                    ) -> None:
    receiver: Receiver
    with running() as receiver:
        ok(pooled_api.post("/v1/webhook_endpoints", json={"url": receiver.url,
                                                          "enabled_events": ["customer.created"]}))
        made = {ok(pooled_api.post("/v1/customers", json={"name": f"Ann {n}"}))["id"] for n in range(10)}
        received = receiver.wait_for(10)
    delivered: list[Any] = [r.event["data"]["object"]["id"] for r in received]
    assert sorted(delivered) == sorted(made)
    assert problems(pooled) == []
