"""The delivery job: claim due attempts, POST each event to its endpoint, record the outcome.

Claim → commit → send → record, in two short transactions with the HTTP calls between them: no transaction is
held across the network. A claim is a lease (`locked_until`): on PostgreSQL rows are taken with
`FOR UPDATE SKIP LOCKED`, so any number of schedulers share the due attempts without sending one twice; on SQLite
the claim runs under the single writer. A scheduler killed after its claim leaves rows that another takes over
once the lease has run out, so nothing is lost (the attempt may then arrive twice: receivers deduplicate on `id`).

Per endpoint, the events of one object go out in order: an attempt waits while an older event of the same object
still has a pending attempt to that endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from dataclasses import dataclass

import httpx
import sqlalchemy as sa
from sqlalchemy.orm import aliased
from sqlmodel import col, select

from server import clock
from server.db import Database
from server.errors import InvalidArgument
from server.events.convert import body as event_body
from server.events.convert import to_proto as event_to_proto
from server.events.models import Event
from server.ids import new_id, random_base62
from server.runtime import Runtime
from server.webhooks import retry, urls
from server.webhooks.models import Delivery, WebhookEndpoint
from server.webhooks.queue import pending_counts
from server.webhooks.service import signing_secrets
from server.webhooks.signing import HEADER, sign

log = logging.getLogger("paygate.webhooks")

BATCH_SIZE = 50
TIMEOUT_SECONDS = 10.0
# Longer than a whole batch can take (its sends run at once, each bounded by the timeout), so a live scheduler
# never loses its claim to another.
LEASE_SECONDS = 60
EXCERPT_BYTES = 1000
# One job run drains due attempts for at most this long, then leaves the rest to the next run.
RUN_BUDGET_SECONDS = 30.0
USER_AGENT = "paygate-webhooks/1"


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


async def claim(db: Database, now: int, limit: int = BATCH_SIZE) -> list[Claimed]:
    older = aliased(Delivery)
    blocked = sa.exists().where(
        col(older.endpoint_id) == col(Delivery.endpoint_id), col(older.object_id) == col(Delivery.object_id),
        col(older.status) == "pending", col(older.event_sort_key) < col(Delivery.event_sort_key))
    query = (
        select(Delivery, WebhookEndpoint)
        .join(WebhookEndpoint, col(WebhookEndpoint.id) == col(Delivery.endpoint_id))
        .where(col(Delivery.status) == "pending", col(Delivery.due_at) <= now,
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
            delivery.locked_until, delivery.lease, delivery.url = now + LEASE_SECONDS, lease, endpoint.url
            session.add(delivery)
            proto = event_to_proto(events[delivery.event_id], pending.get(delivery.event_id, 0))
            out.append(Claimed(delivery.id, lease, delivery.event_id, endpoint.id, delivery.attempt, endpoint.url,
                               endpoint.livemode, tuple(signing_secrets(endpoint, now)), event_body(proto)))
    return out


async def send(client: httpx.AsyncClient, item: Claimed, now: int, timeout: float = TIMEOUT_SECONDS) -> Outcome:
    """One POST of exactly the signed bytes; any 2xx is success. Never raises."""
    if item.livemode:
        try:
            # Again at send time: a name may have been re-pointed at an internal address since it was registered.
            await urls.check("url", item.url, livemode=True)
        except InvalidArgument as e:
            return Outcome(False, 0, 0, f"not sent: {e.message}")
    headers = {
        "Content-Type": "application/json", "User-Agent": USER_AGENT,
        HEADER: sign(item.body, item.secrets, now),
        "Paygate-Event-Id": item.event_id, "Paygate-Delivery-Id": item.delivery_id,
        "Paygate-Delivery-Attempt": str(item.attempt),
    }
    started = time.perf_counter()
    try:
        async with client.stream("POST", item.url, content=item.body, headers=headers, timeout=timeout) as response:
            excerpt = b""
            async for chunk in response.aiter_raw():
                excerpt += chunk
                if len(excerpt) >= EXCERPT_BYTES:
                    break
        latency = round((time.perf_counter() - started) * 1000)
        text = excerpt[:EXCERPT_BYTES].decode("utf-8", errors="replace")[:EXCERPT_BYTES]
        return Outcome(200 <= response.status_code < 300, response.status_code, latency, text)
    except httpx.TimeoutException as e:
        return Outcome(False, 0, round((time.perf_counter() - started) * 1000), f"timeout: {type(e).__name__}")
    except httpx.HTTPError as e:
        return Outcome(False, 0, 0, f"{type(e).__name__}: {e or 'connection failed'}"[:EXCERPT_BYTES])


async def record(db: Database, results: list[tuple[Claimed, Outcome]], now: int,
                 rand: random.Random | None = None) -> None:
    """The outcomes of one batch, in one transaction; a failure with time left schedules the next attempt."""
    async with db.transaction() as session:
        for item, outcome in results:
            row = await session.get(Delivery, item.delivery_id, with_for_update=True)
            if row is None or row.status != "pending" or row.lease != item.lease:
                continue  # dropped (endpoint deleted) or taken over after our lease ran out
            row.status = "succeeded" if outcome.ok else "failed"
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


async def run_once(db: Database, *, now: int | None = None, client: httpx.AsyncClient | None = None,
                   limit: int = BATCH_SIZE, timeout: float = TIMEOUT_SECONDS) -> int:
    """Claims one batch of due attempts, sends them at once and records the outcomes; the number sent.

    `now` defaults to the clock; tests pass it to step through a retry schedule without waiting.
    """
    at = clock.now() if now is None else now
    batch = await claim(db, at, limit)
    if not batch:
        return 0
    own = client is None
    http = client or httpx.AsyncClient(follow_redirects=False)
    try:
        outcomes = await asyncio.gather(*(send(http, item, at, timeout) for item in batch))
    finally:
        if own:
            await http.aclose()
    await record(db, list(zip(batch, outcomes, strict=True)), at if now is not None else clock.now())
    return len(batch)


async def deliver_due(db: Database) -> int:
    """The scheduler job's work: batches until none is full or the run's time budget is spent."""
    started = time.monotonic()
    total = 0
    async with httpx.AsyncClient(follow_redirects=False) as client:
        while time.monotonic() - started < RUN_BUDGET_SECONDS:
            sent = await run_once(db, client=client)
            total += sent
            if sent < BATCH_SIZE:
                break
    return total


async def deliver_webhooks(rt: Runtime) -> None:
    """The scheduler job (scheduler/jobs.py)."""
    sent = await deliver_due(rt.db)
    if sent:
        log.info("webhooks sent", extra={"attempts": sent})
