"""A proxy on loopback between paygate's provider_a client and localstripe: it notes every request (method, path,
`Idempotency-Key`, form body) and can break chosen ones, either forwarding them and answering 502 (the provider
acted, its answer was lost) or answering 502 without forwarding (the provider never saw them). localstripe ignores
`Idempotency-Key`, so what the provider was asked is checked here."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import httpx

PASS, ANSWER_LOST, NEVER_SENT = "pass", "answer lost", "never sent"
Breaks = Callable[[str, str], str]  # (method, path) → PASS, ANSWER_LOST or NEVER_SENT
Seen = list[tuple[str, str, str, dict[str, list[str]]]]  # (method, path, Idempotency-Key, form body)


@dataclass
class ProviderProxy:
    url: str
    seen: Seen = field(default_factory=list)
    breaks: Breaks = lambda method, path: PASS


@contextmanager
def provider_proxy(provider_url: str) -> Iterator[ProviderProxy]:
    proxy = ProviderProxy("")

    class Forward(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?")[0]
            proxy.seen.append((self.command, path, self.headers.get("Idempotency-Key") or "",
                               parse_qs(body.decode())))
            mode = proxy.breaks(self.command, path)
            status, content, kind = 502, json.dumps({"error": {"type": "api_error"}}).encode(), "application/json"
            if mode != NEVER_SENT:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = httpx.request(self.command, f"{provider_url}{self.path}", content=body, headers=headers,
                                       timeout=20)
                if mode == PASS:
                    status, content = answer.status_code, answer.content
                    kind = answer.headers.get("Content-Type", kind)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(content)))
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
