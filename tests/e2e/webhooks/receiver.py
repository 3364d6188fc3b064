"""A real HTTP receiver on loopback for delivery tests: it records every request and answers as it is told."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float
    path: str = ""

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)  # type: ignore[no-any-return]


@dataclass
class Receiver:
    """`answers`: (status, delay seconds) used in order, then `default`. `seen_ids`: the dedup set of a receiver."""

    answers: list[tuple[int, float]] = field(default_factory=list)
    default: tuple[int, float] = (200, 0.0)
    received: list[Received] = field(default_factory=list)
    seen_ids: set[str] = field(default_factory=set)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, received: Received) -> tuple[int, float]:
        with self.lock:
            self.received.append(received)
            self.seen_ids.add(received.event["id"])
            return self.answers.pop(0) if self.answers else self.default

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.received) >= count:
                return list(self.received)
            time.sleep(0.02)
        raise AssertionError(f"received {len(self.received)} of {count} requests")


@contextmanager
def running(receiver: Receiver | None = None) -> Iterator[Receiver]:
    rec = receiver or Receiver()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keeps connections alive, as most receivers do
        # The status line and headers are flushed before the body: without TCP_NODELAY the body would wait for
        # the client's delayed ACK (40 ms) on a kept-alive connection.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, delay = rec.answer(Received({k.lower(): v for k, v in self.headers.items()}, body,
                                                time.monotonic(), self.path))
            if delay:
                time.sleep(delay)
            try:
                answer = f"answered {status}".encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            except OSError:
                pass  # the sender gave up (timeout)

        def log_message(self, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        request_queue_size = 512  # a burst of concurrent deliveries must not overflow the listen backlog

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    rec.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield rec
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def trickling(seconds_per_byte: float = 1.0, limit: float = 30.0) -> Iterator[str]:
    """A receiver that answers one byte per second (status line, headers, body) for up to `limit` seconds: every
    read gets a byte in time, so only a total deadline ends the attempt. Yields its URL."""
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            started = time.monotonic()
            for i in range(len(answer)):
                if stop.is_set() or time.monotonic() - started > limit:
                    return
                try:
                    conn.sendall(answer[i:i + 1])
                except OSError:
                    return  # the sender gave up
                stop.wait(seconds_per_byte)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/slow"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
