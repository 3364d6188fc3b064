"""A paygate of a test module's own, for tests that may break the server they run against (a crash, a jammed
writer): the session's shared server stays out of their way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.harness import TLS, Service, start, stop


def own_service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """Body of a module-scoped fixture parametrised with "sqlite" and "postgresql"."""
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"own-{request.param}")))
    try:
        yield svc
    finally:
        stop(svc)


def alive(svc: Service) -> bool:
    """The process still runs and answers /healthz (HTTP → gRPC → database)."""
    if svc.process is None or svc.process.poll() is not None:
        return False
    try:
        return httpx.get(f"{svc.http_url}/healthz", timeout=10, verify=TLS).status_code == 200
    except httpx.HTTPError:
        return False
