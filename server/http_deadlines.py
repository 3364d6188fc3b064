"""Slow clients (DESIGN §16): deadlines on each request's head and body, and a cap on open connections.

uvicorn times out only idle keep-alive connections (5 s after an answer), and its `limit_concurrency` answers 503
to requests once connections are over a number, but it keeps accepting and holding connections. A client that
sends nothing, one header line a second or 1 byte of a 100-byte body would hold a connection (a file descriptor and
a parser) for as long as it likes, and enough of them hold the server. So the HTTP protocol uvicorn runs is
uvicorn's own httptools protocol with three rules added, all per connection and on the event loop (no task):

* the request head must be complete within `header_seconds` of the connection's start (the first request) or of
  the first byte of the request (later ones on a kept-alive connection): else `408 request_timeout` when a request
  had begun (nothing when none had: an idle connection is just closed) and the connection is closed;
* the whole body must arrive within `body_seconds` of its head, whether or not the application reads it (the
  facade answers `413` from a declared length at once, and the rest must not trickle in forever): else `408` if
  no answer was started, and the connection is closed; the application sees a client that went away;
* a connection beyond `max_connections` open ones (fresh, half-sent and kept-alive ones all count) is closed as
  it is accepted, so the server never queues them: the kernel's backlog drains at the pace of the event loop.

The size of a body is the facade's rule (`max_body_bytes`, `413`); time is this module's.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
from dataclasses import dataclass
from typing import Any, ClassVar

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from wire.codec import dumps

log = logging.getLogger("paygate.http")
# After a deadline's close: what is still queued (the 408) has this long to reach a client that does not read.
LINGER_SECONDS = 2.0
REFUSAL_LOG_SECONDS = 60.0  # at most one warning this often while connections are refused at the cap
# File descriptors a serving process needs besides its HTTP connections: database pools, gRPC, logs, the chain.
OTHER_DESCRIPTORS = 256


@dataclass(frozen=True)
class Limits:
    header_seconds: float
    body_seconds: float
    max_connections: int


def protocol_class(limits: Limits) -> type[HttpToolsProtocol]:
    """The protocol class for `uvicorn.Config(http=...)`: one per server, which keeps its own refusal count."""
    chosen = limits

    class Bound(DeadlineProtocol):
        limits = chosen
        refusals = _Refusals()

    return Bound


class _Refusals:
    def __init__(self) -> None:
        self.count = 0
        self.logged_at = -math.inf


class DeadlineProtocol(HttpToolsProtocol):
    limits: ClassVar[Limits]
    refusals: ClassVar[_Refusals]

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        # One deadline at a time: the head's, then the body's. A single timer per connection, moved only when a
        # deadline comes earlier than it: a kept-alive connection's requests move no timer on the way.
        self._phase: str | None = None  # "headers" | "body" | None
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._began = False  # bytes of a request head have arrived

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.limits.max_connections:
            self.transport = transport
            transport.close()
            self._refused()
            return
        super().connection_made(transport)
        self._arm("headers", self.limits.header_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        self._phase = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._began = True
        if self._phase is None:  # a later request of a kept-alive connection: its head's time starts now
            self._arm("headers", self.limits.header_seconds)

    def on_headers_complete(self) -> None:
        # The body's time starts with its request (_start_asgi_task): a pipelined one is not read before that.
        self._phase, self._began = None, False
        super().on_headers_complete()

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        super()._start_asgi_task(cycle, app)
        if cycle.more_body:
            self._arm("body", self.limits.body_seconds)

    def on_message_complete(self) -> None:
        self._phase = None
        super().on_message_complete()

    def _arm(self, phase: str, seconds: float) -> None:
        self._phase = phase
        self._deadline = self.loop.time() + seconds
        if self._timer is None or self._timer.when() > self._deadline:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self.loop.call_at(self._deadline, self._expire)

    def _expire(self) -> None:
        self._timer = None
        if self._phase is None or self.transport.is_closing():
            return
        if self._deadline > self.loop.time():  # the timer was set for an earlier phase's deadline
            self._timer = self.loop.call_at(self._deadline, self._expire)
            return
        cycle = self.cycle
        if self._phase == "headers":
            if cycle is not None and not cycle.response_complete:
                # The next request's head is slow while this one is still being answered: close after the answer.
                cycle.keep_alive = False
                self._phase = None
                return
            self._close("headers", self.limits.header_seconds, answer=self._began)
            return
        answer = not cycle.response_started
        if not cycle.response_complete:
            # The application's reads now see a client that went away, and what it sends is dropped.
            cycle.disconnected = True
            cycle.message_event.set()
        self._close("body", self.limits.body_seconds, answer=answer)

    def _close(self, part: str, seconds: float, *, answer: bool) -> None:
        self._phase = None
        log.info("http deadline", extra={"part": part, "seconds": seconds,
                                         "client": self.client[0] if self.client else ""})
        if answer:
            self.transport.write(self._timeout_answer(part, seconds))
        self.transport.close()
        # close() first sends what is queued: a client that reads nothing would otherwise still hold the connection.
        self.loop.call_later(LINGER_SECONDS, self.transport.abort)

    def _timeout_answer(self, part: str, seconds: float) -> bytes:
        # The facade's error envelope, spelled here: the core imports no HTTP facade (its composition root does).
        body = dumps({"code": 408, "error_code": "request_timeout",
                      "msg": f"{part}: not received within {seconds:g} s", "data": {}})
        headers = [*self.server_state.default_headers, (b"content-length", str(len(body)).encode()),
                   (b"content-type", b"application/json"), (b"connection", b"close")]
        return b"".join([b"HTTP/1.1 408 Request Timeout\r\n", *(k + b": " + v + b"\r\n" for k, v in headers),
                         b"\r\n", body])

    def _refused(self) -> None:
        refusals = self.refusals
        refusals.count += 1
        if self.loop.time() - refusals.logged_at >= REFUSAL_LOG_SECONDS:
            log.warning("http connections at the cap: new ones are closed",
                        extra={"max_connections": self.limits.max_connections, "refused": refusals.count})
            refusals.count, refusals.logged_at = 0, self.loop.time()


def raise_open_files_limit(max_connections: int) -> None:
    """Lets the process open `max_connections` connections and what else it needs: the soft limit on open files is
    often 1,024, below the default cap, and a process out of descriptors fails its database connections too. Raised
    as far as the hard limit allows; below what is needed, a warning."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = max_connections + OTHER_DESCRIPTORS
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    if target < needed:
        log.warning("open files limit below http_max_connections",
                    extra={"limit": target, "http_max_connections": max_connections, "needed": needed})
