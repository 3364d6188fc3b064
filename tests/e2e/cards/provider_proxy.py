"""A proxy on loopback between paygate's provider_a client and localstripe: it notes every request (method, path,
`Idempotency-Key`, form body) and can break chosen ones, either forwarding them and answering 502 (the provider
acted, its answer was lost), answering 502 without forwarding (the provider never saw them), or forwarding them and
then calling `crash` before any answer (the caller dies after the provider acted: a test kills paygate there).

localstripe ignores `Idempotency-Key`, so what the provider was asked is checked here. With `replays` the proxy also
keeps the key's promise that Stripe documents and localstripe does not: a request under a key seen before (per
secret key) is not forwarded again; it gets the first request's answer again (`Idempotent-Replayed: true`), or, with
other parameters, Stripe's 400 `idempotency_error`. Everything else is localstripe's own doing."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx

from tests.harness import TLS, Service, launch, start

PASS, ANSWER_LOST, NEVER_SENT, CRASH = "pass", "answer lost", "never sent", "crash"
Breaks = Callable[[str, str], str]  # (method, path) → PASS, ANSWER_LOST, NEVER_SENT or CRASH
Seen = list[tuple[str, str, str, dict[str, list[str]]]]  # (method, path, Idempotency-Key, form body)
Answer = tuple[int, bytes, str]  # status, body, Content-Type
IDEMPOTENCY_ERROR = json.dumps({"error": {"type": "idempotency_error", "message": (
    "Keys for idempotent requests can only be used with the same parameters they were first used with.")}}).encode()


@dataclass
class ProviderProxy:
    url: str
    seen: Seen = field(default_factory=list)
    breaks: Breaks = lambda method, path: PASS
    crash: Callable[[], None] = lambda: None  # what CRASH does once the provider has acted
    replays: bool = False
    # (method, path, the provider's JSON answer) → the answer paygate gets instead (a state localstripe never shows)
    rewrite: Callable[[str, str, Any], Any] | None = None
    # (Authorization, Idempotency-Key) → the first request's form body and the provider's answer to it
    answered: dict[tuple[str, str], tuple[dict[str, list[str]], Answer]] = field(default_factory=dict)
    # (method, path) → seconds the request is held before it is forwarded (a slow provider)
    delay: Callable[[str, str], float] = lambda method, path: 0.0
    # requests being handled now, and the most that ever were at once (per secret key: the Authorization header)
    in_flight: dict[str, int] = field(default_factory=dict)
    most_in_flight: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextmanager
def provider_proxy(provider_url: str) -> Iterator[ProviderProxy]:
    proxy = ProviderProxy("")

    class Forward(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            who = self.headers.get("Authorization") or ""
            with proxy.lock:
                proxy.in_flight[who] = proxy.in_flight.get(who, 0) + 1
                proxy.most_in_flight[who] = max(proxy.most_in_flight.get(who, 0), proxy.in_flight[who])
            try:
                self._handle()
            finally:
                with proxy.lock:
                    proxy.in_flight[who] -= 1

        def _handle(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?")[0]
            key, form = self.headers.get("Idempotency-Key") or "", parse_qs(body.decode())
            proxy.seen.append((self.command, path, key, form))
            mode = proxy.breaks(self.command, path)
            held = proxy.delay(self.command, path)
            if held:
                time.sleep(held)
            seen_before = proxy.answered.get((self.headers.get("Authorization") or "", key)) \
                if proxy.replays and key and self.command == "POST" else None
            if seen_before is not None and mode in (ANSWER_LOST, NEVER_SENT):
                self._answer(502, json.dumps({"error": {"type": "api_error"}}).encode(), "application/json")
                return
            if seen_before is not None:
                first_form, first_answer = seen_before
                if form == first_form:
                    self._answer(*first_answer, replayed=True)
                else:
                    self._answer(400, IDEMPOTENCY_ERROR, "application/json")
                return
            status, content, kind = 502, json.dumps({"error": {"type": "api_error"}}).encode(), "application/json"
            if mode != NEVER_SENT:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = httpx.request(self.command, f"{provider_url}{self.path}", content=body, headers=headers,
                                       timeout=20, verify=TLS)
                given = (answer.status_code, answer.content, answer.headers.get("Content-Type", kind))
                if key and self.command == "POST":
                    proxy.answered[(self.headers.get("Authorization") or "", key)] = (form, given)
                if mode == CRASH:
                    proxy.crash()
                    return  # whoever asked is gone: no answer
                if mode == PASS:
                    status, content, kind = given
                    if proxy.rewrite is not None and status == 200:
                        content = json.dumps(proxy.rewrite(self.command, path, json.loads(content))).encode()
            self._answer(status, content, kind)

        def _answer(self, status: int, content: bytes, kind: str, replayed: bool = False) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(content)))
            if replayed:
                self.send_header("Idempotent-Replayed", "true")
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_DELETE = _forward

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def proxied_service(kind: str, workdir: Path, proxy: ProviderProxy) -> Service:
    """A paygate service of a module's own whose provider_a is reached through `proxy` (its tests may kill it)."""
    return start(kind, workdir, extra_env={"PAYGATE_PROVIDER_A_API_BASE": proxy.url})


@contextmanager
def fresh(proxy: ProviderProxy, service: Service) -> Iterator[None]:
    """For one test: the proxy passing everything, its records cleared; afterwards the service running again (a test
    that failed between a kill and the restart leaves the next one a service)."""
    proxy.breaks, proxy.crash, proxy.replays, proxy.rewrite = (lambda method, path: PASS), (lambda: None), False, None
    proxy.delay = lambda method, path: 0.0
    proxy.most_in_flight.clear()
    proxy.seen.clear()
    proxy.answered.clear()
    yield
    if service.process is None or service.process.poll() is not None:
        launch(service)
