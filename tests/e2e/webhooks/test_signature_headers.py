"""`webhook_signature_headers` (DESIGN §12): every delivery carries each configured header, all with the same
signature. Deliveries are made by a real scheduler process, to the real receiver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.webhooks.signing import verify_signature
from tests.conftest import http_client
from tests.e2e.webhooks.conftest import Scheduler, create_customer, create_endpoint
from tests.e2e.webhooks.receiver import Receiver
from tests.harness import Service, start, stop

HEADERS = "Paygate-Signature,X-Acme-Signature,Webhook-Signature"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def signing_service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paygate-sigheaders-{request.param}")),
                only=("http", "grpc"), extra_env={"PAYGATE_WEBHOOK_SIGNATURE_HEADERS": HEADERS})
    yield svc
    stop(svc)


@pytest.fixture
def signing_api(signing_service: Service) -> Iterator[httpx.Client]:
    merchant: dict[str, Any] = signing_service.create_merchant()
    with http_client(signing_service, merchant["test"]["secret_key"]) as client:
        yield client


def test_every_configured_signature_header_carries_the_same_valid_signature(
        signing_service: Service, signing_api: httpx.Client, receiver: Receiver, clock_file: Path,
        tmp_path: Path) -> None:
    endpoint = create_endpoint(signing_api, receiver.url)
    create_customer(signing_api)
    scheduler = Scheduler(signing_service, tmp_path, clock_file)
    try:
        [received, *_] = receiver.wait_for(1)
    finally:
        scheduler.stop()
    values = [received.headers.get(name.lower()) for name in HEADERS.split(",")]
    assert values[0] and values == [values[0]] * len(values), received.headers
    assert verify_signature(received.body, values[0], endpoint["secret"])


def test_by_default_only_paygate_signature_is_sent(service: Service, api: httpx.Client, receiver: Receiver,
                                                   clock_file: Path, tmp_path: Path) -> None:
    create_endpoint(api, receiver.url)
    create_customer(api)
    scheduler = Scheduler(service, tmp_path, clock_file)
    try:
        [received, *_] = receiver.wait_for(1)
    finally:
        scheduler.stop()
    assert "paygate-signature" in received.headers
    assert not [h for h in received.headers if h.endswith("-signature") and h != "paygate-signature"]
