"""Fixtures: every end-to-end test runs once against SQLite and once against PostgreSQL."""

from __future__ import annotations

import base64
import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from tests.harness import TLS, Service, start, stop
from tests.mail import SMS_GATEWAY, Mailbox, smtp_server

_LOG_OFFSETS = pytest.StashKey[dict[Path, int]]()


def _service_logs(item: pytest.Item) -> list[Path]:
    values = getattr(item, "funcargs", {}).values()
    return [value.workdir / "serve.log" for value in values if isinstance(value, Service)]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    item.stash[_LOG_OFFSETS] = {path: path.stat().st_size for path in _service_logs(item) if path.exists()}
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[
        None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report shows what its services logged above info while it ran: a background task's failure
    (a card refund's provider call, a job) is otherwise lost with the service's temporary directory."""
    report = yield
    if call.when == "call" and report.failed:
        for path, offset in item.stash.get(_LOG_OFFSETS, {}).items():
            with path.open("rb") as log:
                log.seek(offset)
                lines = [line for line in log.read().decode(errors="replace").splitlines()
                         if _above_info(line)]
            if lines:
                report.sections.append((f"paygate serve log above info ({path.parent.name})",
                                        "\n".join(lines[-60:])))
    return report


def _above_info(line: str) -> bool:
    try:
        entry = json.loads(line)
    except ValueError:
        return bool(line.strip())  # not a log record: a traceback or a crash's output
    return not isinstance(entry, dict) or entry.get("level") not in ("info", "debug")


@pytest.fixture(scope="session")
def mailbox() -> Iterator[Mailbox]:
    """A real SMTP server (aiosmtpd) receiving the one-time codes the service e-mails."""
    with smtp_server() as box:
        yield box


FACADE_CHANNELS = ("in_process", "grpc")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--facade-channel", choices=(*FACADE_CHANNELS, "both"), default="in_process",
                     help="how the facade of the shared test service reaches its gRPC server: in-process (the "
                          "default, as deployed), over a loopback gRPC channel, or both (every test using the "
                          "`service` fixture runs twice; DESIGN §13: the answers must be the same)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = config.getoption("--facade-channel")
    if wanted == "both":
        return
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        channel = callspec.params.get("facade_channel") if callspec is not None else None
        (drop if channel not in (None, wanted) else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session", params=FACADE_CHANNELS)
def facade_channel(request: pytest.FixtureRequest) -> str:
    """`PAYGATE_FACADE_CHANNEL` of the shared service; `--facade-channel` selects which run."""
    return str(request.param)


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            mailbox: Mailbox, facade_channel: str) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"paygate-{request.param}")),
                # Every test of the suite asks for codes from 127.0.0.1: the cap per client IP (10 an hour) is
                # tests/e2e/http/test_code_abuse.py's to test, on its own service.
                extra_env={"PAYGATE_SMTP_URL": mailbox.url, "PAYGATE_SMS_EMAIL_GATEWAY": SMS_GATEWAY,
                           "PAYGATE_FACADE_CHANNEL": facade_channel, "PAYGATE_CODE_SENDS_PER_IP_PER_HOUR": "1000000"})
    yield svc
    stop(svc)


@pytest.fixture
def merchant(service: Service) -> dict[str, Any]:
    """A fresh merchant per test, so lists and totals see only the test's own objects."""
    return service.create_merchant()


@pytest.fixture
def other_merchant(service: Service) -> dict[str, Any]:
    return service.create_merchant("Another merchant")


def http_client(service: Service, secret_key: str | None) -> httpx.Client:
    auth = httpx.BasicAuth(secret_key, "") if secret_key else None
    return httpx.Client(base_url=service.http_url, auth=auth, timeout=30, verify=TLS)


@pytest.fixture
def api(service: Service, merchant: dict[str, Any]) -> Iterator[httpx.Client]:
    """The merchant's test-mode secret key over HTTP Basic."""
    with http_client(service, merchant["test"]["secret_key"]) as client:
        yield client


@pytest.fixture
def live_api(service: Service, merchant: dict[str, Any]) -> Iterator[httpx.Client]:
    with http_client(service, merchant["live"]["secret_key"]) as client:
        yield client


@pytest.fixture
def other_api(service: Service, other_merchant: dict[str, Any]) -> Iterator[httpx.Client]:
    with http_client(service, other_merchant["test"]["secret_key"]) as client:
        yield client


@pytest.fixture
def anonymous(service: Service) -> Iterator[httpx.Client]:
    with http_client(service, None) as client:
        yield client


@pytest.fixture(scope="session")
def channel(service: Service) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(service.grpc_addr) as ch:
        yield ch


@pytest.fixture
def grpc_auth(merchant: dict[str, Any]) -> list[tuple[str, str]]:
    """gRPC metadata carrying the merchant's test secret key."""
    return [("authorization", f"Bearer {merchant['test']['secret_key']}")]


def basic(key: str) -> str:
    return "Basic " + base64.b64encode(f"{key}:".encode()).decode()


def ok(response: httpx.Response) -> Any:
    """The `data` of a successful envelope, after checking the envelope itself."""
    body = response.json()
    assert response.status_code == 200, body
    assert body["code"] == 0 and body["error_code"] == "success" and body["msg"] == "success", body
    return body["data"]


def fails(response: httpx.Response, status: int, error_code: str, field: str | None = None) -> dict[str, Any]:
    """Checks an error envelope: HTTP status, `code` = status, the error_code, `data` {} and the named field."""
    body = response.json()
    assert response.status_code == status, body
    assert body["code"] == status and body["error_code"] == error_code and body["data"] == {}, body
    if field is not None:
        assert body["msg"].startswith(field), body
    assert "Traceback" not in body["msg"]
    return body  # type: ignore[no-any-return]
