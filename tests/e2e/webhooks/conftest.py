"""Webhook tests run against a paygate without its scheduler, so that each test decides when deliveries happen:
in-process with a chosen `now` (`deliver`), or in scheduler subprocesses it starts and kills (`scheduler`).

Each test module has its own paygate and database (module-scoped `service`): a delivery run takes every due attempt
of its database, whoever's, so modules sharing one would depend on which ran first."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from server.config import load_settings
from server.db import Database
from server.sealing import SecretBox
from server.webhooks import delivery, urls
from tests.conftest import http_client, ok
from tests.e2e.webhooks.receiver import Receiver, running
from tests.harness import Service, start, stop


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paygate-webhooks-{request.param}")),
                only=("http", "grpc"))
    yield svc
    stop(svc)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def strict_service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A paygate whose operator has not allowed private webhook targets (the production default)."""
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paygate-strict-{request.param}")),
                only=("http", "grpc"), extra_env={"PAYGATE_WEBHOOK_ALLOW_PRIVATE": "false"})
    yield svc
    stop(svc)


@pytest.fixture
def strict_merchant(strict_service: Service) -> dict[str, Any]:
    return strict_service.create_merchant()


@pytest.fixture
def strict_api(strict_service: Service, strict_merchant: dict[str, Any]) -> Iterator[httpx.Client]:
    with http_client(strict_service, strict_merchant["test"]["secret_key"]) as client:
        yield client


@pytest.fixture
def strict_live_api(strict_service: Service, strict_merchant: dict[str, Any]) -> Iterator[httpx.Client]:
    with http_client(strict_service, strict_merchant["live"]["secret_key"]) as client:
        yield client


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running() as rec:
        yield rec


def deliver(service: Service, *, now: int | None = None, timeout: float = delivery.TIMEOUT_SECONDS,
            resolve: urls.Resolver = urls.resolve) -> int:
    """One delivery run in this process against the service's database, with the service's own settings (whether
    private targets are allowed): the number of attempts sent."""
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})

    async def run() -> int:
        db = Database(service.database_url)
        try:
            box = SecretBox(settings.encryption_key, service.workdir / "var")
            return await delivery.run_once(db, box, now=now, timeout=timeout,
                                           allow_private=settings.webhooks.allow_private_targets, resolve=resolve)
        finally:
            await db.close()

    return asyncio.run(run())


def deliver_all(service: Service, *, budget: float = 60.0) -> int:
    """A scheduler's delivery run in this process: claims, sends and records until nothing is due and nothing is in
    flight (or `budget` seconds have passed); the number of attempts sent."""
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})

    async def run() -> int:
        db = Database(service.database_url)
        try:
            box = SecretBox(settings.encryption_key, service.workdir / "var")
            return await delivery.deliver_due(db, box, allow_private=settings.webhooks.allow_private_targets,
                                              budget=budget)
        finally:
            await db.close()

    return asyncio.run(run())


def set_url(service: Service, endpoint_id: str, url: str) -> None:
    """Writes an endpoint's URL straight into the database: a row stored before today's checks existed."""
    engine = sa.create_engine(service.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE webhook_endpoints SET url = :url WHERE id = :id"),
                         {"url": url, "id": endpoint_id})
    finally:
        engine.dispose()


def attempts(api: httpx.Client, event_id: str) -> list[dict[str, Any]]:
    return ok(api.get(f"/v1/events/{event_id}/deliveries", params={"page_size": 100}))["deliveries"]  # type: ignore[no-any-return]


def create_endpoint(api: httpx.Client, url: str, events: list[str] | None = None) -> dict[str, Any]:
    return ok(api.post("/v1/webhook_endpoints", json={"url": url, "enabled_events": events or ["*"]}))  # type: ignore[no-any-return]


def create_customer(api: httpx.Client, name: str = "Ann") -> dict[str, Any]:
    return ok(api.post("/v1/customers", json={"name": name}))  # type: ignore[no-any-return]


def events_of(api: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    return ok(api.get("/v1/events", params={"page_size": 100, **params}))["events"]  # type: ignore[no-any-return]


class Scheduler:
    """`paygate serve --only scheduler` in a subprocess, polling often, with a clock the test can move (its runtime's
    clock is tests/clock.py's FileOffsetClock over `clock_file`)."""

    def __init__(self, service: Service, workdir: Path, clock_file: Path) -> None:
        env = {**service.env, "PAYGATE_WEBHOOK_POLL_SECONDS": "0.1"}  # PYTHONPATH: the checkout (tests/harness.py)
        self.log = (workdir / f"scheduler-{os.urandom(3).hex()}.log").open("wb")
        self.process = subprocess.Popen([sys.executable, "-m", "tests.clock", str(clock_file), "serve", "--only",
                                         "scheduler"], env=env, cwd=service.workdir, stdout=self.log,
                                        stderr=subprocess.STDOUT)

    def kill9(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


@pytest.fixture
def clock_file(tmp_path: Path) -> Path:
    path = tmp_path / "clock-offset"
    path.write_text("0")
    return path


@pytest.fixture
def schedulers(service: Service, tmp_path: Path, clock_file: Path) -> Iterator[list[Scheduler]]:
    """Started by the test (`schedulers.append(Scheduler(...))`); all stopped at the end."""
    started: list[Scheduler] = []
    yield started
    for s in started:
        s.stop()


__all__ = ["Receiver", "Scheduler", "attempts", "create_customer", "create_endpoint", "deliver", "deliver_all",
           "events_of", "set_url"]
