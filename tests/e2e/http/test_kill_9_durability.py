"""Every create that was answered 200 survives a SIGKILL of the server mid-burst (issue 13 item 2): on SQLite the
writer commits concurrent requests in groups, and answers each only once its group's COMMIT has returned."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import ok
from tests.e2e.grpc.own_service import alive, own_service
from tests.harness import TLS, Service, launch

CREATES = 1500
CONCURRENCY = 32
KILL_AFTER = 150  # answered creates before the kill: many more are in flight at that instant


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def svc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    yield from own_service(request, tmp_path_factory)


async def _burst_then_kill(svc: Service, key: str) -> list[str]:
    assert svc.process is not None
    answered: list[str] = []
    killed = asyncio.Event()
    gate = asyncio.Semaphore(CONCURRENCY)

    async def create(api: httpx.AsyncClient, i: int) -> None:
        async with gate:
            if killed.is_set():
                return
            try:
                response = await api.post("/v1/customers", json={"name": f"kill-9 {i}"})
            except httpx.HTTPError:
                return  # cut by the kill: never answered, so either outcome is allowed
            if response.status_code == 200:
                answered.append(ok(response)["id"])
            if len(answered) >= KILL_AFTER and not killed.is_set():
                killed.set()
                svc.process.send_signal(signal.SIGKILL)  # type: ignore[union-attr]

    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    async with httpx.AsyncClient(base_url=svc.http_url, auth=httpx.BasicAuth(key, ""), timeout=30,
                                 limits=limits, verify=TLS) as api:
        await asyncio.gather(*(create(api, i) for i in range(CREATES)))
    assert killed.is_set(), "the burst ended before the kill"
    return answered


def test_every_answered_create_is_in_the_database_after_a_kill_9_mid_burst(svc: Service) -> None:
    key = svc.create_merchant()["test"]["secret_key"]
    answered = asyncio.run(_burst_then_kill(svc, key))
    assert svc.process is not None and svc.process.wait(timeout=30) == -signal.SIGKILL
    launch(svc)
    assert alive(svc)
    with httpx.Client(base_url=svc.http_url, auth=httpx.BasicAuth(key, ""), timeout=30, verify=TLS) as api:
        missing = [id_ for id_ in answered if api.get(f"/v1/customers/{id_}").status_code != 200]
    assert len(answered) >= KILL_AFTER
    assert missing == [], f"{len(missing)} of {len(answered)} answered creates were lost"
