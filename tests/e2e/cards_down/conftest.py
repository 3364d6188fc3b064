"""A paygate whose provider_a address answers nothing (nothing listens there): the provider is down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cards.conftest import card_keys
from tests.harness import Service, free_port, start, stop


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paygate-cards-down-{request.param}")),
                extra_env={"PAYGATE_PROVIDER_A_API_BASE": f"http://127.0.0.1:{free_port()}"})
    yield svc
    stop(svc)


@pytest.fixture
def merchant(service: Service) -> dict[str, Any]:
    m = service.create_merchant()
    m["provider_a"] = card_keys(service, m["merchant_id"])
    return m
