"""Slow clients (DESIGN §16): the HTTP server closes a connection whose request head takes longer than the header
deadline or whose body takes longer than the body deadline, and holds at most `http_max_connections` connections.

A dedicated service with short deadlines (headers 2 s, body 3 s: different, so a test sees which one applied) and a
cap of 5 connections; the defaults (10 s, 10 s, 1,000) are stated in tests/unit/test_config.py. The slow clients are
raw sockets from 127.0.0.2; the clients that must still be served speak from 127.0.0.3.
"""

from __future__ import annotations

import json
import resource
import select
import socket
import time
from collections.abc import Iterable, Iterator
from itertools import count, repeat
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import basic, ok
from tests.harness import TLS, Service, log_lines, start, stop

HEADER_SECONDS, BODY_SECONDS, MAX_CONNECTIONS = 2, 3, 5
# How late a deadline may act on a loaded machine (two cores shared with other test processes).
LATE = 2.0
SLOW, OTHER = "127.0.0.2", "127.0.0.3"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def strict(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start(request.param, Path(tmp_path_factory.mktemp(f"slow-clients-{request.param}")),
                extra_env={"PAYGATE_HTTP_HEADER_TIMEOUT_SECONDS": str(HEADER_SECONDS),
                           "PAYGATE_HTTP_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS),
                           "PAYGATE_HTTP_MAX_CONNECTIONS": str(MAX_CONNECTIONS)})
    yield svc
    stop(svc)


@pytest.fixture
def key(strict: Service) -> str:
    return str(strict.create_merchant()["test"]["secret_key"])


def _connect(svc: Service, source: str = SLOW) -> socket.socket:
    host, port = svc.http_url.removeprefix("http://").rsplit(":", 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect((host, int(port)))
    return sock


def _trickle(sock: socket.socket, pieces: Iterable[bytes], every: float, give_up: float) -> tuple[float | None, bytes]:
    """Sends one piece every `every` seconds until the server closes the connection: (seconds until it did, or None
    if it was still open after `give_up`; what it answered)."""
    started, received = time.monotonic(), b""
    for piece in pieces:
        if time.monotonic() - started >= give_up:
            return None, received
        try:
            sock.sendall(piece)
        except OSError:  # reset: the server has closed it
            return time.monotonic() - started, received
        until = time.monotonic() + every
        while (left := until - time.monotonic()) > 0:
            if not select.select([sock], [], [], left)[0]:
                break
            try:
                chunk = sock.recv(65536)
            except OSError:
                return time.monotonic() - started, received
            if not chunk:
                return time.monotonic() - started, received
            received += chunk
    return None, received


def _closed_after(sock: socket.socket, pieces: Iterable[bytes], every: float, deadline: float) -> tuple[float, bytes]:
    """`_trickle`, checking that the server closed the connection at its deadline (not before, not much after)."""
    elapsed, received = _trickle(sock, pieces, every, give_up=deadline + LATE + 3)
    assert elapsed is not None, f"still open {deadline + LATE + 3} s later; answered {received!r}"
    assert deadline - 0.3 <= elapsed <= deadline + LATE, (elapsed, received)
    return elapsed, received


def _answer(raw: bytes) -> tuple[int, dict[str, str], Any]:
    """Status, headers (lower-case names) and JSON body of one HTTP/1.1 response."""
    head, _, body = raw.partition(b"\r\n\r\n")
    headers = _headers(head)
    assert len(body) == int(headers["content-length"]), raw
    return int(head.split()[1]), headers, json.loads(body)


def _read_answer(sock: socket.socket) -> bytes:
    """One whole response (head and Content-Length body), read within 5 s."""
    sock.settimeout(5)
    raw = b""
    while b"\r\n\r\n" not in raw or len(raw.partition(b"\r\n\r\n")[2]) < int(
            _headers(raw.partition(b"\r\n\r\n")[0]).get("content-length", "0")):
        chunk = sock.recv(65536)
        assert chunk, f"closed after {raw!r}"
        raw += chunk
    sock.settimeout(None)
    return raw


def _headers(head: bytes) -> dict[str, str]:
    return {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in
                                                          head.decode("latin-1").split("\r\n")[1:])}


def _is_open(sock: socket.socket) -> bool:
    """Nothing to read yet: neither an answer nor the end of the connection."""
    return not select.select([sock], [], [], 0)[0]


def _header_lines() -> Iterator[bytes]:
    yield b"GET /healthz HTTP/1.1\r\nHost: paygate\r\n"
    for n in count():
        yield f"X-Slow-{n}: {n}\r\n".encode()


def _post_head(key: str, length: int) -> bytes:
    return (f"POST /v1/customers HTTP/1.1\r\nHost: paygate\r\nAuthorization: {basic(key)}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n").encode()


def _other_client(svc: Service, key: str | None = None) -> httpx.Client:
    return httpx.Client(base_url=svc.http_url, auth=httpx.BasicAuth(key, "") if key else None, timeout=10,
                        transport=httpx.HTTPTransport(local_address=OTHER, verify=TLS))


def test_a_client_sending_one_header_line_a_second_is_answered_408_and_closed_after_the_header_deadline(
        strict: Service) -> None:
    with _connect(strict) as sock:
        _, received = _closed_after(sock, _header_lines(), every=1.0, deadline=HEADER_SECONDS)
    status, headers, body = _answer(received)
    assert status == 408 and headers["connection"] == "close"
    assert body["code"] == 408 and body["error_code"] == "request_timeout" and body["data"] == {}, body
    assert body["msg"].startswith("headers"), body


def test_a_connection_that_sends_nothing_is_closed_after_the_header_deadline(strict: Service) -> None:
    with _connect(strict) as sock:
        _, received = _closed_after(sock, repeat(b""), every=1.0, deadline=HEADER_SECONDS)
    assert received == b""  # no request began: nothing to answer


def test_a_slow_second_request_on_a_kept_alive_connection_is_closed_after_the_header_deadline(
        strict: Service) -> None:
    with _connect(strict) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: paygate\r\n\r\n")
        assert _answer(_read_answer(sock))[0] == 200
        _, received = _closed_after(sock, _header_lines(), every=1.0, deadline=HEADER_SECONDS)
    assert _answer(received)[0] == 408


def test_an_idle_kept_alive_connection_is_closed_5_seconds_after_its_answer(strict: Service) -> None:
    with _connect(strict) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: paygate\r\n\r\n")
        assert _answer(_read_answer(sock))[0] == 200
        _, received = _closed_after(sock, repeat(b""), every=0.5, deadline=5)
    assert received == b""


def test_a_client_sending_1_of_100_body_bytes_is_answered_408_after_the_body_deadline_and_nothing_is_created(
        strict: Service, key: str) -> None:
    with _connect(strict) as sock:
        _, received = _closed_after(sock, [_post_head(key, 100) + b"{", *repeat(b"", 30)], every=1.0,
                                    deadline=BODY_SECONDS)
    status, headers, body = _answer(received)
    assert status == 408 and headers["connection"] == "close"
    assert body["code"] == 408 and body["error_code"] == "request_timeout" and body["data"] == {}, body
    assert body["msg"].startswith("body"), body
    with _other_client(strict, key) as api:
        assert ok(api.get("/v1/customers"))["total"] == 0


def test_a_client_trickling_a_refused_body_is_closed_after_the_body_deadline(strict: Service, key: str) -> None:
    """The facade answers 413 from the declared length at once; the connection must not stay open for the rest."""
    with _connect(strict) as sock:
        _, received = _closed_after(sock, [_post_head(key, 2_000_000), *repeat(b"x", 30)], every=1.0,
                                    deadline=BODY_SECONDS)
    assert _answer(received)[0] == 413


def test_other_clients_are_answered_while_slow_clients_are_held(strict: Service, key: str) -> None:
    with _other_client(strict, key) as api, _connect(strict) as slow_head, _connect(strict) as slow_body:
        slow_head.sendall(b"GET /healthz HTTP/1.1\r\nHost: paygate\r\n")
        slow_body.sendall(_post_head(key, 100) + b"{")
        assert ok(api.get("/v1/customers"))["total"] == 0
        assert _is_open(slow_head) and _is_open(slow_body)  # answered while both were still held


def test_a_slow_client_within_the_deadlines_succeeds(strict: Service, key: str) -> None:
    body = json.dumps({"name": "Slow but steady"}).encode()
    head = _post_head(key, len(body))
    pieces = [head[:20], head[20:60], head[60:]]
    with _connect(strict) as sock:
        for piece in pieces:  # the head in 0.6 s of the 2 allowed
            sock.sendall(piece)
            time.sleep(0.3)
        for piece in (body[:5], body[5:12], body[12:]):  # the body in 0.9 s of the 3 allowed
            sock.sendall(piece)
            time.sleep(0.3)
        received = _read_answer(sock)
    status, _, answer = _answer(received)
    assert status == 200 and answer["data"]["name"] == "Slow but steady", answer


@pytest.mark.parametrize("path", ["/v1/customers", "/webhooks/provider_a/m_gone"])
def test_a_client_going_away_mid_body_is_logged_499_without_an_error(strict: Service, key: str, path: str) -> None:
    rid = f"gone-mid-body-{path.count('/')}"
    errors_before = len(log_lines(strict, level="error"))
    head = (f"POST {path} HTTP/1.1\r\nHost: paygate\r\nAuthorization: {basic(key)}\r\nX-Request-Id: {rid}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n").encode()
    with _connect(strict) as sock:
        sock.sendall(head + b'{"name": "')  # 10 of the 100 bytes, then gone
    deadline = time.monotonic() + 10  # the access line is written once the facade has given up on the body
    while not (access := log_lines(strict, request_id=rid, msg="http")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [(e["path"], e["status"]) for e in access] == [(path, 499)], access
    errors = log_lines(strict, level="error")[errors_before:]
    assert errors == [], errors  # no "facade failure" / "unhandled error" line with a traceback


def test_a_connection_above_the_cap_is_closed_at_once(strict: Service, key: str) -> None:
    """Every open connection counts: fresh idle ones, kept-alive ones after an answer and half-sent ones."""
    held = [_connect(strict) for _ in range(MAX_CONNECTIONS)]
    try:
        for sock in held[:2]:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: paygate\r\n\r\n")
        held[2].sendall(b"GET /healthz HTTP/1.1\r\nHost: paygate\r\n")
        for sock in held[:2]:
            assert _answer(_read_answer(sock))[0] == 200
        assert all(_is_open(sock) for sock in held[2:])
        with _connect(strict, OTHER) as extra:
            started = time.monotonic()
            elapsed, received = _trickle(extra, [b"GET /healthz HTTP/1.1\r\nHost: paygate\r\n\r\n",
                                                 *repeat(b"", 10)], every=0.2, give_up=1.0)
        assert elapsed is not None and time.monotonic() - started < 1.0, "the connection above the cap was held"
        assert received == b"", received
        assert all(_is_open(sock) for sock in held[2:])  # the cap refuses new connections, not the held ones
    finally:
        for sock in held:
            sock.close()


def test_the_server_answers_again_once_idle_connections_at_the_cap_time_out(strict: Service) -> None:
    held = [_connect(strict) for _ in range(MAX_CONNECTIONS + 3)]
    try:
        for sock in held[:MAX_CONNECTIONS]:
            elapsed, _ = _trickle(sock, repeat(b""), every=0.5, give_up=HEADER_SECONDS + LATE + 3)
            assert elapsed is not None, "an idle connection was held past the header deadline"
        with _other_client(strict) as client:
            ok(client.get("/healthz"))
    finally:
        for sock in held:
            sock.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_serve_raises_a_low_open_files_limit_to_hold_1000_connections(kind: str, tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))  # inherited by the service, as from a shell's ulimit
    try:
        svc = start(kind, tmp_path)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        assert svc.process is not None
        limits = Path(f"/proc/{svc.process.pid}/limits").read_text().splitlines()
        open_files = next(line for line in limits if line.startswith("Max open files")).split()
        assert int(open_files[3]) >= 1000, open_files  # the default http_max_connections
    finally:
        stop(svc)
