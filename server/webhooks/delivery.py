"""The delivery job: claim due attempts, POST each event to its endpoint, record the outcome.

Claim → commit → send → record, in short transactions with the HTTP calls between them: no transaction is
held across the network. The claimed attempts are grouped by endpoint; endpoints are served in parallel, each with a
few attempts in flight, one total deadline per attempt, and its outcomes recorded as soon as its group is done. Any
failure of one attempt is that attempt's outcome, never the batch's.

A claim is a lease (`locked_until`, longer than the worst batch): on PostgreSQL rows are taken with
`FOR UPDATE SKIP LOCKED`, so any number of schedulers share the due attempts without sending one twice; on SQLite
the claim runs under the single writer. A scheduler killed after its claim leaves rows that another takes over
once the lease has run out, so nothing is lost (the attempt may then arrive twice: receivers deduplicate on `id`).

Per endpoint, the events of one object go out in order: an attempt waits while an older event of the same object
still has a pending attempt to that endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import random
import time
from dataclasses import dataclass

import httpx
import sqlalchemy as sa
from sqlalchemy.orm import aliased
from sqlmodel import col, select

from server.clock import SYSTEM_CLOCK, Clock
from server.db import Database
from server.errors import InvalidArgument, Unavailable
from server.events.convert import body as event_body
from server.events.convert import to_proto as event_to_proto
from server.events.models import Event
from server.ids import new_id, random_base62
from server.runtime import Runtime
from server.webhooks import retry, urls
from server.webhooks.models import Delivery, DeliveryStatus, WebhookEndpoint
from server.webhooks.queue import pending_counts
from server.webhooks.sealing import SecretBox
from server.webhooks.service import signing_secrets
from server.webhooks.signing import HEADER, sign

log = logging.getLogger("paygate.webhooks")
# httpx logs every request's full URL at INFO; a webhook URL's query string often carries a token.
logging.getLogger("httpx").setLevel(logging.WARNING)

BATCH_SIZE = 50
# One total deadline per attempt (`webhooks.timeout_seconds`).
TIMEOUT_SECONDS = 10.0
# Attempts in flight to one endpoint at a time; the batch's endpoints are served in parallel.
PER_ENDPOINT_CONCURRENCY = 4
EXCERPT_BYTES = 1000
# One job run drains due attempts for at most this long, then leaves the rest to the next run.
RUN_BUDGET_SECONDS = 30.0
USER_AGENT = "paygate-webhooks/1"


def lease_seconds(timeout: float = TIMEOUT_SECONDS) -> int:
    """A claim outlives the worst batch (all of it for one endpoint: BATCH_SIZE / PER_ENDPOINT_CONCURRENCY rounds,
    each ended by the deadline) with a margin for recording, so a live scheduler never loses its claim to
    another and no attempt is sent twice."""
    return math.ceil(math.ceil(BATCH_SIZE / PER_ENDPOINT_CONCURRENCY) * timeout) + 30


LEASE_SECONDS = lease_seconds()


def poll_seconds() -> float:
    """How often the scheduler looks for due attempts (`PAYGATE_WEBHOOK_POLL_SECONDS`, default 1 s)."""
    try:
        return max(0.05, float(os.environ.get("PAYGATE_WEBHOOK_POLL_SECONDS", "1")))
    except ValueError:
        return 1.0


@dataclass(frozen=True)
class Claimed:
    delivery_id: str
    lease: str
    event_id: str
    endpoint_id: str
    attempt: int
    url: str
    livemode: bool
    secrets: tuple[str, ...]
    body: bytes


@dataclass(frozen=True)
class Outcome:
    ok: bool
    http_status: int
    latency_ms: int
    excerpt: str


async def claim(db: Database, now: int, box: SecretBox, limit: int = BATCH_SIZE,
                lease_for: int = LEASE_SECONDS) -> list[Claimed]:
    older = aliased(Delivery)
    blocked = sa.exists().where(
        col(older.endpoint_id) == col(Delivery.endpoint_id), col(older.object_id) == col(Delivery.object_id),
        col(older.status) == DeliveryStatus.PENDING, col(older.event_sort_key) < col(Delivery.event_sort_key))
    query = (
        select(Delivery, WebhookEndpoint)
        .join(WebhookEndpoint, col(WebhookEndpoint.id) == col(Delivery.endpoint_id))
        .where(col(Delivery.status) == DeliveryStatus.PENDING, col(Delivery.due_at) <= now,
               sa.or_(col(Delivery.locked_until).is_(None), col(Delivery.locked_until) < now),
               col(WebhookEndpoint.disabled).is_(False), col(WebhookEndpoint.deleted_at).is_(None), ~blocked)
        .order_by(col(Delivery.due_at), col(Delivery.event_sort_key))
        .limit(limit)
        .with_for_update(of=Delivery, skip_locked=True)
    )
    lease = random_base62(16)
    async with db.transaction() as session:
        pairs = list(await session.exec(query))
        if not pairs:
            return []
        event_ids = sorted({d.event_id for d, _ in pairs})
        events = {e.id: e for e in await session.exec(select(Event).where(col(Event.id).in_(event_ids)))}
        pending = await pending_counts(session, event_ids)
        out: list[Claimed] = []
        for delivery, endpoint in pairs:
            delivery.locked_until, delivery.lease, delivery.url = now + lease_for, lease, endpoint.url
            session.add(delivery)
            proto = event_to_proto(events[delivery.event_id], pending.get(delivery.event_id, 0))
            try:
                secrets = tuple(signing_secrets(endpoint, now, box))
            except Unavailable:
                secrets = ()  # sealed under a key not configured here: this attempt fails, not the whole claim
            out.append(Claimed(delivery.id, lease, delivery.event_id, endpoint.id, delivery.attempt, endpoint.url,
                               endpoint.livemode, secrets, event_body(proto)))
    return out


async def send(client: httpx.AsyncClient, item: Claimed, now: int, *, timeout: float = TIMEOUT_SECONDS,
               allow_private: bool = False, resolve: urls.Resolver = urls.resolve,
               signature_headers: tuple[str, ...] = (HEADER,)) -> Outcome:
    """One POST of exactly the signed bytes; any 2xx is success. Never raises: whatever goes wrong is this
    attempt's own failure, with a message safe to show the merchant.

    One deadline covers the whole attempt (lookup, connect, headers and body): a receiver that trickles its answer
    a byte at a time cannot hold the job.
    """
    if not item.secrets:
        return Outcome(False, 0, 0, "not sent: the endpoint's signing secret cannot be opened (encryption_key)")
    started = time.perf_counter()
    private = True  # until vetted: no detail of an unvetted target is kept
    try:
        async with asyncio.timeout(timeout):
            # At send time: a name may have been re-pointed at an internal address since it was registered.
            target = await urls.vet("url", item.url, allow_private=allow_private, resolve=resolve)
            private = target.private
            return await _post(client, item, target, now, started, signature_headers)
    except InvalidArgument as e:
        return Outcome(False, 0, 0, f"not sent: {e.message}")
    except (TimeoutError, httpx.TimeoutException):
        return Outcome(False, 0, _ms(started), f"timeout: no complete answer within {timeout:g} s")
    except httpx.HTTPError as e:
        detail = "" if private else f": {e}"
        return Outcome(False, 0, _ms(started), f"{type(e).__name__}{detail}"[:EXCERPT_BYTES])
    except Exception as e:  # a bug or a library's surprise must not take the other deliveries of the batch down
        log.warning("webhook attempt failed", extra={"delivery_id": item.delivery_id,
                                                     "url": urls.loggable(item.url), "error": type(e).__name__})
        return Outcome(False, 0, _ms(started), f"not sent: {type(e).__name__}")


def _ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


async def _post(client: httpx.AsyncClient, item: Claimed, target: urls.Target, now: int,
                started: float, signature_headers: tuple[str, ...]) -> Outcome:
    """The exchange itself, connected to the vetted address; Host, TLS SNI and the certificate check use the
    URL's own host name. Every configured signature header carries the same value (DESIGN §12)."""
    url = httpx.URL(item.url)
    signature = sign(item.body, item.secrets, now)
    headers = {
        "Host": url.netloc.decode("ascii"), "Content-Type": "application/json", "User-Agent": USER_AGENT,
        **{name: signature for name in signature_headers},
        "Paygate-Event-Id": item.event_id, "Paygate-Delivery-Id": item.delivery_id,
        "Paygate-Delivery-Attempt": str(item.attempt),
    }
    extensions = {"sni_hostname": target.host} if target.is_name else {}
    async with client.stream("POST", url.copy_with(host=target.address), content=item.body, headers=headers,
                             extensions=extensions) as response:
        excerpt = b""
        async for chunk in response.aiter_raw():
            excerpt += chunk
            if len(excerpt) >= EXCERPT_BYTES:
                break
    text = "" if target.private else excerpt[:EXCERPT_BYTES].decode("utf-8", errors="replace")[:EXCERPT_BYTES]
    return Outcome(200 <= response.status_code < 300, response.status_code, _ms(started), text)


async def record(db: Database, results: list[tuple[Claimed, Outcome]], now: int,
                 rand: random.Random | None = None) -> None:
    """The outcomes of one batch, in one transaction; a failure with time left schedules the next attempt."""
    async with db.transaction() as session:
        for item, outcome in results:
            row = await session.get(Delivery, item.delivery_id, with_for_update=True)
            if row is None or row.status != DeliveryStatus.PENDING or row.lease != item.lease:
                continue  # dropped (endpoint deleted) or taken over after our lease ran out
            row.status = DeliveryStatus.SUCCEEDED if outcome.ok else DeliveryStatus.FAILED
            row.http_status, row.latency_ms, row.response_excerpt = outcome.http_status, outcome.latency_ms, \
                outcome.excerpt
            row.attempted_at, row.locked_until = now, None
            if not outcome.ok:
                row.next_attempt_at = retry.next_attempt_at(row.attempt, now, row.window_start, rand)
                if row.next_attempt_at is not None:
                    session.add(Delivery(
                        id=new_id("evtd"), event_id=row.event_id, endpoint_id=row.endpoint_id,
                        merchant_id=row.merchant_id, object_id=row.object_id, event_sort_key=row.event_sort_key,
                        attempt=row.attempt + 1, due_at=row.next_attempt_at, window_start=row.window_start,
                        url=row.url))
            session.add(row)


async def run_once(db: Database, box: SecretBox, *, now: int | None = None, clock: Clock = SYSTEM_CLOCK,
                   limit: int = BATCH_SIZE,
                   timeout: float = TIMEOUT_SECONDS, allow_private: bool = False,
                   resolve: urls.Resolver = urls.resolve, signature_headers: tuple[str, ...] = (HEADER,)) -> int:
    """Claims one batch of due attempts, sends them and records the outcomes; the number sent.

    The endpoints of the batch are served in parallel, each with its own connections and at most
    PER_ENDPOINT_CONCURRENCY attempts at a time; each endpoint's outcomes are recorded as soon as its attempts are
    done, so a slow endpoint delays nobody else. `now` defaults to `clock` (the runtime's); tests pass it to step
    through a retry schedule without waiting.
    """
    at = clock.now() if now is None else now
    batch = await claim(db, at, box, limit, lease_seconds(timeout))
    by_endpoint: dict[str, list[Claimed]] = {}
    for item in batch:
        by_endpoint.setdefault(item.endpoint_id, []).append(item)

    async def serve(items: list[Claimed]) -> None:
        outcomes = await _send_all(items, at, timeout=timeout, allow_private=allow_private, resolve=resolve,
                                   signature_headers=signature_headers)
        await record(db, list(zip(items, outcomes, strict=True)), at if now is not None else clock.now())

    done = await asyncio.gather(*(serve(items) for items in by_endpoint.values()), return_exceptions=True)
    for failure in done:
        if isinstance(failure, BaseException):  # not recorded: the attempts are taken up again after the lease
            log.error("webhook outcomes not recorded", extra={"error": type(failure).__name__})
    return len(batch)


async def _send_all(items: list[Claimed], now: int, *, timeout: float, allow_private: bool,
                    resolve: urls.Resolver, signature_headers: tuple[str, ...]) -> list[Outcome]:
    """The attempts to one endpoint, a few at a time, over connections of their own (never shared with another
    endpoint: a connection is bound to the address and host name it was opened for)."""
    gate = asyncio.Semaphore(PER_ENDPOINT_CONCURRENCY)

    async def one(client: httpx.AsyncClient, item: Claimed) -> Outcome:
        async with gate:
            return await send(client, item, now, timeout=timeout, allow_private=allow_private, resolve=resolve,
                              signature_headers=signature_headers)

    # trust_env=False: a proxy from the environment would make its own lookup of the name.
    async with httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=timeout) as client:
        results = await asyncio.gather(*(one(client, item) for item in items), return_exceptions=True)
    return [r if isinstance(r, Outcome) else Outcome(False, 0, 0, f"not sent: {type(r).__name__}") for r in results]


async def deliver_due(db: Database, box: SecretBox, *, clock: Clock = SYSTEM_CLOCK,
                      timeout: float = TIMEOUT_SECONDS, allow_private: bool = False,
                      signature_headers: tuple[str, ...] = (HEADER,)) -> int:
    """The scheduler job's work: batches until none is full or the run's time budget is spent."""
    started = time.monotonic()
    total = 0
    while time.monotonic() - started < RUN_BUDGET_SECONDS:
        sent = await run_once(db, box, clock=clock, timeout=timeout, allow_private=allow_private,
                              signature_headers=signature_headers)
        total += sent
        if sent < BATCH_SIZE:
            break
    return total


async def deliver_webhooks(rt: Runtime) -> None:
    """The scheduler job (scheduler/jobs.py)."""
    settings = rt.settings.webhooks
    sent = await deliver_due(rt.db, rt.box, clock=rt.clock, timeout=settings.timeout_seconds,
                             allow_private=settings.allow_private_targets,
                             signature_headers=settings.signature_headers)
    if sent:
        log.info("webhooks sent", extra={"attempts": sent})
