"""Sending attempts: one bounded pool of HTTP/1.1 keep-alive connections per endpoint, one deadline per attempt.

A `Sender` lives for one delivery run (a scheduler job run claims for up to half a minute). Per endpoint it keeps
a pool of at most `concurrency` connections (http11.py) and lets at most that many attempts to the endpoint be in
flight; every other attempt to it waits for a connection, so a slow or failing endpoint holds only its own
connections and its own attempts. Connections are kept alive between attempts, so a busy endpoint costs one
connect per connection, not one per attempt (issue 13's profile: a fresh httpx client per batch spent a fifth of
the scheduler's time building TLS contexts, and httpx's per-request work two thirds of the rest). One TLS context
serves the whole process.

Each endpoint's host is vetted (urls.vet: one lookup, every address checked) when first sent to and again once the
vetted answer is `VET_SECONDS` old; attempts connect to the vetted address, never to a second lookup's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from server.errors import InvalidArgument, invalid
from server.tls import client_context
from server.webhooks import http11, urls
from server.webhooks.signing import HEADER, sign

log = logging.getLogger("paygate.webhooks")

# One total deadline per attempt (`webhooks.timeout_seconds`).
TIMEOUT_SECONDS = 10.0
# Connections (and so attempts in flight) to one endpoint at a time.
CONCURRENCY = 8
EXCERPT_BYTES = 1000
# How long one vetted lookup of an endpoint's host is used before the host is looked up and checked again.
VET_SECONDS = 5.0
USER_AGENT = "paygate-webhooks/1"

@dataclass(frozen=True)
class Attempt:
    """What one POST needs: the exact bytes, the secrets that sign them, and the headers that name the attempt."""

    delivery_id: str
    event_id: str
    endpoint_id: str
    attempt: int
    url: str
    secrets: tuple[str, ...]
    body: bytes


@dataclass(frozen=True)
class Outcome:
    ok: bool
    http_status: int
    latency_ms: int
    excerpt: str


@dataclass(frozen=True)
class _Url:
    """What the wire needs of an endpoint URL, parsed once."""

    url: str
    https: bool
    port: int
    host_header: bytes
    target: bytes  # path and query, as sent

    @classmethod
    def parse(cls, url: str) -> _Url:
        parsed = httpx.URL(url)
        https = parsed.scheme == "https"
        return cls(url, https, parsed.port or (443 if https else 80), parsed.netloc, parsed.raw_path or b"/")


class _Endpoint:
    def __init__(self, concurrency: int) -> None:
        self.gate = asyncio.Semaphore(concurrency)
        self.pools: dict[http11.Origin, http11.Pool] = {}  # by vetted address: a re-vetted name may move
        self.url: _Url | None = None
        self.target: urls.Target | None = None
        self.vetted_at = 0.0
        self.vetting = asyncio.Lock()  # attempts starting together share one lookup

    def parsed(self, url: str) -> _Url:
        if self.url is None or self.url.url != url:
            self.url = _Url.parse(url)
        return self.url

    def pool(self, origin: http11.Origin) -> http11.Pool:
        pool = self.pools.get(origin)
        if pool is None:
            for old in self.pools.values():  # connections to an address no longer vetted are not reused
                old.close()
            self.pools = {origin: (pool := http11.Pool(origin, client_context()))}
        return pool

    def close(self) -> None:
        for pool in self.pools.values():
            pool.close()
        self.pools = {}


class Sender:
    def __init__(self, *, timeout: float = TIMEOUT_SECONDS, allow_private: bool = False,
                 resolve: urls.Resolver = urls.resolve, signature_headers: tuple[str, ...] = (HEADER,),
                 concurrency: int = CONCURRENCY) -> None:
        self.timeout, self.allow_private, self.resolve = timeout, allow_private, resolve
        self.signature_headers, self.concurrency = signature_headers, concurrency
        # By endpoint and URL: a connection is bound to the address and host name it was opened for, so it is
        # never shared with another endpoint, nor kept when an endpoint's URL changes.
        self._endpoints: dict[tuple[str, str], _Endpoint] = {}

    def _endpoint(self, attempt: Attempt) -> _Endpoint:
        key = (attempt.endpoint_id, attempt.url)
        endpoint = self._endpoints.get(key)
        if endpoint is None:
            endpoint = self._endpoints[key] = _Endpoint(self.concurrency)
        return endpoint

    async def aclose(self) -> None:
        endpoints, self._endpoints = list(self._endpoints.values()), {}
        for endpoint in endpoints:
            endpoint.close()

    async def send(self, attempt: Attempt, clock: Callable[[], int],
                   started: Callable[[], None] | None = None) -> Outcome:
        """One POST of exactly the signed bytes; any 2xx is success. Never raises: whatever goes wrong is this
        attempt's own failure, with a message safe to show the merchant.

        Signed with `clock`'s time when the request is written, not when it was claimed or queued: a receiver
        checks the signature's age against its own clock (DESIGN §12), and an attempt that waited behind a slow
        one of its endpoint must not arrive looking old.

        The deadline starts once a connection of the endpoint is free and covers the whole attempt (lookup,
        connect, headers and body): a receiver that trickles its answer a byte at a time cannot hold the job.
        `started` is called when it has a connection: until then the attempt may be cancelled unsent.
        """
        if not attempt.secrets:
            return Outcome(False, 0, 0, "not sent: the endpoint's signing secret cannot be opened (encryption_key)")
        endpoint = self._endpoint(attempt)
        async with endpoint.gate:
            if started is not None:
                started()
            began = time.perf_counter()
            private = True  # until vetted: no detail of an unvetted target is kept
            try:
                async with asyncio.timeout(self.timeout):
                    target = await self._vetted(endpoint, attempt.url)
                    private = target.private
                    return await self._post(endpoint, attempt, target, clock, began)
            except InvalidArgument as e:
                return Outcome(False, 0, 0, f"not sent: {e.message}")
            except TimeoutError:
                return Outcome(False, 0, _ms(began), f"timeout: no complete answer within {self.timeout:g} s")
            except (OSError, http11.ProtocolError) as e:  # refused, reset, TLS, an answer that is not HTTP
                detail = "" if private else f": {e}"
                return Outcome(False, 0, _ms(began), f"{type(e).__name__}{detail}"[:EXCERPT_BYTES])
            except Exception as e:  # a bug or a library's surprise must not take the other deliveries down
                log.warning("webhook attempt failed", extra={"delivery_id": attempt.delivery_id,
                                                             "url": urls.loggable(attempt.url),
                                                             "error": type(e).__name__})
                return Outcome(False, 0, _ms(began), f"not sent: {type(e).__name__}")

    async def _vetted(self, endpoint: _Endpoint, url: str) -> urls.Target:
        """At send time (a name may have been re-pointed at an internal address since it was registered), at most
        VET_SECONDS old. A refusal is never kept: the next attempt looks again."""
        async with endpoint.vetting:
            target = endpoint.target
            if target is None or target.url != url or time.monotonic() - endpoint.vetted_at >= VET_SECONDS:
                endpoint.target = None
                target = await urls.vet("url", url, allow_private=self.allow_private, resolve=self.resolve)
                endpoint.target, endpoint.vetted_at = target, time.monotonic()
            return target

    async def _post(self, endpoint: _Endpoint, attempt: Attempt, target: urls.Target, clock: Callable[[], int],
                    started: float) -> Outcome:
        """The exchange itself, connected to the vetted address; Host, TLS SNI and the certificate check use the
        URL's own host name. Every configured signature header carries the same value (DESIGN §12)."""
        url = endpoint.parsed(attempt.url)
        signature = sign(attempt.body, attempt.secrets, clock())
        lines = [b"POST " + url.target + b" HTTP/1.1", b"Host: " + url.host_header,
                 b"Content-Type: application/json", b"User-Agent: " + USER_AGENT.encode(),
                 b"Content-Length: " + str(len(attempt.body)).encode(),
                 *(f"{name}: {signature}".encode() for name in self.signature_headers),
                 b"Paygate-Event-Id: " + attempt.event_id.encode(),
                 b"Paygate-Delivery-Id: " + attempt.delivery_id.encode(),
                 b"Paygate-Delivery-Attempt: " + str(attempt.attempt).encode()]
        head = b"\r\n".join(lines) + b"\r\n\r\n"
        if b"\n" in head[:-4].replace(b"\r\n", b"") or b"\r" in head[:-4].replace(b"\r\n", b""):
            raise invalid("url", "a header would carry a line break")
        origin = http11.Origin(target.address, url.port, target.host if url.https else None)
        answer = await endpoint.pool(origin).post(head, attempt.body, EXCERPT_BYTES)
        text = "" if target.private else excerpt_text(answer.excerpt)
        return Outcome(200 <= answer.status < 300, answer.status, _ms(started), text)


def excerpt_text(raw: bytes) -> str:
    """The receiver's answer as text that any database stores: PostgreSQL refuses a NUL in text, and one refused row
    would fail the whole batch of outcomes it is recorded with, other merchants' included, so they would all be sent
    again. Bytes that are not UTF-8 and NULs become U+FFFD."""
    return raw[:EXCERPT_BYTES].decode("utf-8", errors="replace").replace("\x00", "\ufffd")[:EXCERPT_BYTES]


def _ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
