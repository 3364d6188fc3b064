"""The facade's two ways to the servicers give the same bytes (DESIGN §13).

One database, two paygate processes: `in_process` (HTTP and gRPC in one process, the servicers called through the
pipeline directly) and `grpc` (the facade over a loopback gRPC channel). The same requests, with the same request
id, to both: status, body and the headers a client reads are identical. The whole HTTP suite also runs both ways
with `pytest --facade-channel both`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import basic, ok
from tests.harness import TLS, Service, free_port, launch, log_lines, start, stop

HEADERS = ("content-type", "x-request-id", "idempotent-replayed", "www-authenticate", "retry-after", "allow")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, Service]]:
    workdir = Path(tmp_path_factory.mktemp(f"channels-{request.param}"))
    local = start(request.param, workdir, only=("http", "grpc"), extra_env={"PAYGATE_FACADE_CHANNEL": "in_process"})
    http_port, grpc_port = free_port(), free_port()
    env = {**local.env, "PAYGATE_FACADE_CHANNEL": "grpc", "PAYGATE_HTTP_ADDR": f"127.0.0.1:{http_port}",
           "PAYGATE_GRPC_ADDR": f"127.0.0.1:{grpc_port}"}
    other_dir = workdir / "loopback"
    other_dir.mkdir()
    loopback = replace(local, http_url=f"http://127.0.0.1:{http_port}", grpc_addr=f"127.0.0.1:{grpc_port}",
                       env=env, workdir=other_dir, process=None)
    try:
        launch(loopback, only=("http", "grpc"))
        yield local, loopback
    finally:
        if loopback.process is not None and loopback.process.poll() is None:
            loopback.process.terminate()
            loopback.process.wait(timeout=15)
        stop(local)


def _answer(response: httpx.Response) -> tuple[int, bytes, dict[str, str]]:
    return response.status_code, response.content, {h: response.headers[h] for h in HEADERS if h in response.headers}


def both(pair: tuple[Service, Service], method: str, path: str, **kwargs: Any) -> tuple[int, bytes, dict[str, str]]:
    """The answer, after checking the other process gave the same bytes."""
    answers = []
    for svc in pair:
        with httpx.Client(base_url=svc.http_url, timeout=30, verify=TLS) as client:
            answers.append(_answer(client.request(method, path, **kwargs)))
    assert answers[0] == answers[1]
    return answers[0]


def test_reads_of_the_same_object_are_byte_identical(pair: tuple[Service, Service]) -> None:
    merchant = pair[0].create_merchant()
    auth = {"Authorization": basic(merchant["test"]["secret_key"]), "X-Request-Id": "same-id-1"}
    with httpx.Client(base_url=pair[0].http_url, timeout=30, verify=TLS) as client:
        created = ok(client.post("/v1/customers", headers=auth, json={
            "name": "Zoë", "email": "zoe@example.com", "metadata": {"b": 1, "a": [1.5, "x", None], "c": {"z": 0}}}))
    status, body, headers = both(pair, "GET", f"/v1/customers/{created['id']}", headers=auth)
    assert status == 200 and json.loads(body)["data"] == created and headers["x-request-id"] == "same-id-1"
    status, body, _ = both(pair, "GET", "/v1/customers", headers=auth, params={"page": 1, "page_size": 5})
    assert status == 200 and json.loads(body)["data"]


def test_errors_are_byte_identical(pair: tuple[Service, Service]) -> None:
    merchant = pair[0].create_merchant()
    key = merchant["test"]["secret_key"]
    auth = {"Authorization": basic(key), "X-Request-Id": "same-id-2"}
    assert both(pair, "GET", "/v1/customers", headers={"X-Request-Id": "r"})[0] == 401  # no key
    assert both(pair, "GET", "/v1/customers", headers={"Authorization": basic("sk_test_nope"),
                                                       "X-Request-Id": "r"})[0] == 401
    assert both(pair, "GET", "/v1/customers", headers={"Authorization": basic(merchant["test"]["public_key"]),
                                                       "X-Request-Id": "r"})[0] == 403
    assert both(pair, "GET", "/v1/customers/cus_missing", headers=auth)[0] == 404
    assert both(pair, "POST", "/v1/customers", headers=auth, json={"email": "not an address"})[0] == 400
    assert both(pair, "POST", "/v1/customers", headers=auth, json={"name": 5})[0] == 400
    assert both(pair, "POST", "/v1/customers", headers={**auth, "Content-Type": "text/plain"},
                content=b"{}")[0] == 415
    assert both(pair, "POST", "/v1/products", headers=auth, json={})[0] == 400  # a required field missing
    assert both(pair, "DELETE", "/v1/customers", headers=auth)[0] == 405
    assert both(pair, "GET", "/healthz", headers={"X-Request-Id": "h"})[0] == 200


def test_idempotent_replays_are_byte_identical_through_either_facade(pair: tuple[Service, Service]) -> None:
    merchant = pair[0].create_merchant()
    auth = {"Authorization": basic(merchant["test"]["secret_key"]), "X-Request-Id": "same-id-3",
            "Idempotency-Key": "channels-1"}
    with httpx.Client(base_url=pair[1].http_url, timeout=30, verify=TLS) as client:
        first = client.post("/v1/customers", headers=auth, json={"name": "Once"})
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers
    status, body, headers = both(pair, "POST", "/v1/customers", headers=auth, json={"name": "Once"})
    assert (status, body) == (200, first.content) and headers["idempotent-replayed"] == "true"
    # A replayed refusal: the same key with another body.
    status, body, headers = both(pair, "POST", "/v1/customers", headers=auth, json={"name": "Twice"})
    assert status >= 400 and json.loads(body)["code"] == status


def _lines_of(svc: Service, request_id: str, count: int) -> list[dict[str, Any]]:
    """The access lines of one request, once `count` of them are written or 10 s have passed.

    The facade writes its line after the answer has gone out, so the client can read the log first.
    """
    deadline = time.monotonic() + 10
    while True:
        lines = [e for e in log_lines(svc, request_id=request_id) if e.get("msg") in ("http", "rpc")]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def test_a_request_answered_in_process_writes_one_access_log_line_with_its_rpc(
        pair: tuple[Service, Service]) -> None:
    merchant = pair[0].create_merchant()
    auth = {"Authorization": basic(merchant["test"]["secret_key"])}
    for svc, rid in zip(pair, ("one-line-local", "one-line-loopback"), strict=True):
        with httpx.Client(base_url=svc.http_url, timeout=30, verify=TLS) as client:
            ok(client.post("/v1/customers", headers={**auth, "X-Request-Id": rid}, json={"name": "Logged"}))
    local, loopback = _lines_of(pair[0], "one-line-local", 1), _lines_of(pair[1], "one-line-loopback", 2)
    assert [(e["msg"], e["status"], e["method"], e["code"], e["merchant"]) for e in local] == [
        ("http", 200, "/paygate.v1.CustomerService/CreateCustomer", "OK", merchant["merchant_id"])]
    # Over the loopback channel the gRPC server logs its call itself.
    assert sorted(e["msg"] for e in loopback) == ["http", "rpc"]
