"""`GET /metrics` (DESIGN §22): Prometheus text, no API key, counts per RPC, status and transport, job runs, and the
sums of every worker under `serve --workers N`."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from paygate.v1 import customers_pb2, customers_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import fails, http_client, ok
from tests.e2e.webhooks.receiver import Receiver, running
from tests.harness import TLS, Service, free_port, start, stop

CREATE = "paygate.v1.CustomerService/CreateCustomer"
LIST = "paygate.v1.CustomerService/ListCustomers"
GET = "paygate.v1.CustomerService/GetCustomer"


Scrape = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Scrape:
    """Every sample of a scrape, by its name and labels."""
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(scrape: Scrape, name: str, **labels: str) -> float:
    return scrape.get((name, frozenset(labels.items())), 0.0)


def scrape(url: str) -> Scrape:
    # A new connection per scrape: under --workers the kernel may hand it to any worker.
    response = httpx.get(f"{url}/metrics", timeout=10, verify=TLS, headers={"Connection": "close"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return samples(response.text)


def scrape_until(url: str, done: Callable[[Scrape], bool], timeout: float = 5.0) -> Scrape:
    deadline = time.monotonic() + timeout
    while True:
        got = scrape(url)
        if done(got) or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def metered(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"metrics-{request.param}")))
    yield svc
    stop(svc)


def test_metrics_answer_without_an_api_key(metered: Service) -> None:
    response = httpx.get(f"{metered.http_url}/metrics", timeout=10, verify=TLS)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    names = {family.name for family in text_string_to_metric_families(response.text)}
    assert {"paygate_requests", "paygate_request_duration_seconds", "paygate_job_runs"} <= names


def test_metrics_refuse_other_methods(metered: Service) -> None:
    response = httpx.post(f"{metered.http_url}/metrics", timeout=10, verify=TLS)
    fails(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "GET, HEAD"


def test_a_create_and_a_refused_create_are_counted_by_rpc_status_and_transport(metered: Service) -> None:
    merchant = metered.create_merchant()
    before = scrape(metered.http_url)  # other tests of this service create customers too
    with http_client(metered, merchant["test"]["secret_key"]) as api:
        ok(api.post("/v1/customers", json={"name": "Ann"}))
        fails(api.post("/v1/customers", json={"name": "Bob", "email": "not an address"}), 400, "parameter_invalid")
    after = scrape(metered.http_url)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("paygate_requests_total", rpc=CREATE, status="ok", transport="http") == 1
    assert grew("paygate_requests_total", rpc=CREATE, status="parameter_invalid", transport="http") == 1
    assert grew("paygate_request_duration_seconds_count", rpc=CREATE, transport="http") == 2
    assert value(after, "paygate_requests_total", rpc=CREATE, status="ok", transport="grpc") == 0


def test_webhook_deliveries_are_counted_by_outcome(metered: Service) -> None:
    merchant = metered.create_merchant()
    with running() as accepting, running(Receiver(default=(500, 0.0))) as refusing, \
            http_client(metered, merchant["test"]["secret_key"]) as api:
        before = scrape(metered.http_url)
        for receiver in (accepting, refusing):
            ok(api.post("/v1/webhook_endpoints", json={"url": receiver.url, "enabled_events": ["customer.created"]}))
        ok(api.post("/v1/customers", json={"name": "Ann"}))
        accepting.wait_for(1)
        refusing.wait_for(1)
        after = scrape_until(metered.http_url, lambda got: sum(
            value(got, "paygate_webhook_deliveries_total", outcome=o) for o in ("succeeded", "failed")) >= sum(
            value(before, "paygate_webhook_deliveries_total", outcome=o) for o in ("succeeded", "failed")) + 2)
    for outcome in ("succeeded", "failed"):  # one attempt each; the failed one's retry is minutes away
        assert value(after, "paygate_webhook_deliveries_total", outcome=outcome) == \
            value(before, "paygate_webhook_deliveries_total", outcome=outcome) + 1


def test_a_call_without_a_key_is_counted_with_its_error_code(metered: Service) -> None:
    response = httpx.get(f"{metered.http_url}/v1/customers/cus_000000000000000000000000", timeout=10, verify=TLS)
    fails(response, 401, "unauthorized")
    after = scrape(metered.http_url)
    assert value(after, "paygate_requests_total", rpc=GET, status="unauthorized", transport="http") == 1


def test_a_grpc_call_is_counted_with_transport_grpc(metered: Service) -> None:
    merchant = metered.create_merchant()
    with grpc.insecure_channel(metered.grpc_addr) as channel:
        stub = customers_pb2_grpc.CustomerServiceStub(channel)
        stub.ListCustomers(customers_pb2.ListCustomersRequest(),
                           metadata=[("authorization", f"Bearer {merchant['test']['secret_key']}")], timeout=10)
        with pytest.raises(grpc.RpcError) as refused:
            stub.ListCustomers(customers_pb2.ListCustomersRequest(), metadata=[("authorization", "Bearer nope")],
                               timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # gRPC sends an abort's status before the handler's exception unwinds to the interceptor that counts it.
    after = scrape_until(metered.http_url, lambda got: value(got, "paygate_request_duration_seconds_count", rpc=LIST,
                                                             transport="grpc") >= 2)
    assert value(after, "paygate_requests_total", rpc=LIST, status="ok", transport="grpc") == 1
    assert value(after, "paygate_requests_total", rpc=LIST, status="unauthorized", transport="grpc") == 1
    assert value(after, "paygate_request_duration_seconds_count", rpc=LIST, transport="grpc") == 2


def test_scheduler_job_runs_are_counted(metered: Service) -> None:
    deadline = time.monotonic() + 30
    runs = 0.0
    while time.monotonic() < deadline:  # expire_payment_intents runs every second in the tests' services
        runs = value(scrape(metered.http_url), "paygate_job_runs_total", job="expire_payment_intents")
        if runs > 0:
            break
        time.sleep(0.5)
    assert runs > 0
    final = scrape(metered.http_url)
    assert value(final, "paygate_job_duration_seconds_count", job="expire_payment_intents") >= runs
    assert value(final, "paygate_job_failures_total", job="expire_payment_intents") == 0


@pytest.fixture(scope="module")
def metrics_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, str]]:
    port = free_port()
    svc = start("sqlite", Path(tmp_path_factory.mktemp("metrics-addr")), only=("http", "grpc"),
                # Two calls without a key, then refusals (a token per 100 s): the rate-limit test's.
                extra_env={"PAYGATE_METRICS_ADDR": f"127.0.0.1:{port}", "PAYGATE_RATE_LIMIT_IP_BURST": "2",
                           "PAYGATE_RATE_LIMIT_IP_PER_SECOND": "0.01"})
    yield svc, f"http://127.0.0.1:{port}"
    stop(svc)


def test_metrics_addr_serves_metrics_on_its_own_port_instead_of_the_facade(
        metrics_port: tuple[Service, str]) -> None:
    svc, url = metrics_port
    merchant = svc.create_merchant()
    with http_client(svc, merchant["test"]["secret_key"]) as api:
        ok(api.post("/v1/customers", json={"name": "Ann"}))
    assert value(scrape(url), "paygate_requests_total", rpc=CREATE, status="ok", transport="http") == 1
    assert httpx.get(f"{svc.http_url}/metrics", timeout=10, verify=TLS).status_code == 404


def test_rate_limit_refusals_are_counted_by_kind(metrics_port: tuple[Service, str]) -> None:
    svc, url = metrics_port
    answers = [httpx.get(f"{svc.http_url}/v1/assets/all", timeout=10, verify=TLS) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert value(scrape(url), "paygate_rate_limit_refusals_total", kind="ip") == 1
    assert value(scrape(url), "paygate_requests_total", rpc="paygate.v1.AssetService/ListAllAssets",
                 status="rate_limited", transport="http") == 1


WORKERS = 2
REQUESTS = 30


def _serve_workers(svc: Service, log_name: str) -> None:
    assert svc.process is not None
    svc.process.terminate()  # the single process made the database ready; the workers take over its ports
    svc.process.wait(timeout=15)
    log = (svc.workdir / log_name).open("ab")
    svc.process = subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "http", "--only",
                                    "grpc", "--workers", str(WORKERS)], env=svc.env, cwd=svc.workdir, stdout=log,
                                   stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert svc.process.poll() is None, (svc.workdir / log_name).read_text()
        # Every worker listens (its own SO_REUSEPORT socket), and the port answers.
        if len(_listening_sockets(int(svc.http_url.rpartition(":")[2]))) >= WORKERS:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{svc.http_url}/healthz", timeout=1, verify=TLS).status_code == 200:
                    return
        time.sleep(0.2)
    raise AssertionError((svc.workdir / log_name).read_text())


def _listening_sockets(port: int) -> set[str]:
    """The inodes of the sockets listening on `port` (as tests/e2e/http/test_workers.py reads them)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    inodes.add(fields[9])
    return inodes


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start("postgresql", Path(tmp_path_factory.mktemp("metrics-workers")), only=("http", "grpc"))
    _serve_workers(svc, "workers.log")
    yield svc
    stop(svc)


def test_request_counts_add_up_across_workers(workers: Service) -> None:
    merchant = workers.create_merchant()
    auth: Any = httpx.BasicAuth(merchant["test"]["secret_key"], "")
    for i in range(REQUESTS):  # a new connection each: the kernel spreads them over the workers
        ok(httpx.post(f"{workers.http_url}/v1/customers", json={"name": f"c{i}"}, auth=auth, timeout=30,
                      verify=TLS, headers={"Connection": "close"}))
    for _ in range(6):  # whichever worker answers the scrape reports every worker's requests
        assert value(scrape(workers.http_url), "paygate_requests_total", rpc=CREATE, status="ok",
                     transport="http") == REQUESTS
    assert workers.process is not None
    for pid in _children(workers.process.pid):  # and both served some: each wrote its own counter file
        environ = dict(entry.split("=", 1) for entry in Path(f"/proc/{pid}/environ").read_text().split("\0")
                       if "=" in entry)
        files = sorted(p.name for p in Path(environ["PROMETHEUS_MULTIPROC_DIR"]).iterdir())
        assert f"counter_{pid}.db" in files, (pid, files)


@pytest.fixture(scope="module")
def workers_with_metrics_addr(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, str]]:
    port = free_port()
    svc = start("postgresql", Path(tmp_path_factory.mktemp("metrics-workers-addr")), only=("http", "grpc"),
                extra_env={"PAYGATE_METRICS_ADDR": f"127.0.0.1:{port}"})
    _serve_workers(svc, "workers.log")
    yield svc, f"http://127.0.0.1:{port}"
    stop(svc)


def test_under_workers_metrics_addr_is_served_by_the_supervisor_with_every_workers_counts(
        workers_with_metrics_addr: tuple[Service, str]) -> None:
    svc, url = workers_with_metrics_addr
    merchant = svc.create_merchant()
    auth: Any = httpx.BasicAuth(merchant["test"]["secret_key"], "")
    for i in range(REQUESTS):
        ok(httpx.post(f"{svc.http_url}/v1/customers", json={"name": f"c{i}"}, auth=auth, timeout=30, verify=TLS,
                      headers={"Connection": "close"}))
    assert value(scrape(url), "paygate_requests_total", rpc=CREATE, status="ok", transport="http") == REQUESTS
    assert httpx.get(f"{svc.http_url}/metrics", timeout=10, verify=TLS).status_code == 404
