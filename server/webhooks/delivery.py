"""The delivery job: claim due attempts, POST each event to its endpoint, record the outcomes in batches.

A run is a pipeline in one process. It claims due attempts in short transactions (a claim is a lease in the
database, never in memory), hands each to the Sender (attempts.py: per endpoint, a bounded pool of keep-alive
connections and as many attempts in flight), and a recorder writes the outcomes as they come, many per transaction:
whatever arrived while the previous write was committing goes in the next one. No transaction is held across the
network. The run claims again whenever it has room, so sending, claiming and recording overlap.

A claim is a lease (`locked_until`, longer than the worst wait of a claimed attempt): on PostgreSQL rows are taken
with `FOR UPDATE SKIP LOCKED`, so any number of schedulers share the due attempts without sending one twice; on
SQLite the claim runs under the database's single writer (BEGIN IMMEDIATE), with the same effect. A scheduler killed
after its claim leaves rows that another takes over once the lease has run out, so nothing is lost (the attempt may
then arrive twice: receivers deduplicate on `id`). A scheduler stopped by a signal does not wait for the lease: its
cancelled run records the outcomes it has and gives back every other claim (those cut off in flight are sent again).

One endpoint's trouble stays its own: a process holds at most ENDPOINT_BACKLOG claimed attempts of one endpoint
(the claim skips an endpoint that has no room left), each endpoint has its own connections, any failure of one
attempt is that attempt's outcome, and outcomes are recorded as they come, not when a batch ends.

Per endpoint, the events of one object go out in order: an attempt is not claimed while an older event of the same
object still has a pending attempt to that endpoint (in flight counts: it is pending until recorded).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import col, select

from server import metrics
from server.db import Database
from server.db.sets import one_of
from server.errors import Unavailable
from server.events.convert import body as event_body
from server.events.convert import to_proto as event_to_proto
from server.events.models import Event
from server.ids import new_id, random_base62
from server.runtime import Runtime
from server.sealing import SecretBox
from server.webhooks import attempts, retry, urls
from server.webhooks.attempts import EXCERPT_BYTES, TIMEOUT_SECONDS, Attempt, Outcome, Sender
from server.webhooks.models import Delivery, DeliveryStatus, WebhookEndpoint
from server.webhooks.queue import pending_counts
from server.webhooks.service import secrets_for
from server.webhooks.signing import HEADER

log = logging.getLogger("paygate.webhooks")

# Attempts taken by one claim.
BATCH_SIZE = 100
# Claimed, not yet recorded attempts of one endpoint in one process: bounds how long a claimed attempt can wait for
# one of the endpoint's connections (and so the lease).
ENDPOINT_BACKLOG = 96
# Claimed, not yet recorded attempts in one process: many endpoints' backlogs, so that a few slow endpoints holding
# theirs in full leave room for all the others (bodies of a few KiB: a few MiB of memory).
MAX_IN_FLIGHT = 2048
# Outcomes written by one transaction at most.
RECORD_BATCH = 500
# One job run claims for at most this long, then finishes what it holds and leaves the rest to the next run.
RUN_BUDGET_SECONDS = 30.0
PER_ENDPOINT_CONCURRENCY = attempts.CONCURRENCY

__all__ = ["BATCH_SIZE", "EXCERPT_BYTES", "TIMEOUT_SECONDS", "Claimed", "Outcome", "claim", "deliver_due",
           "record", "run_once"]


def lease_seconds(timeout: float = TIMEOUT_SECONDS) -> int:
    """A claim outlives the worst wait of a claimed attempt (behind the rest of its endpoint's backlog:
    ENDPOINT_BACKLOG / PER_ENDPOINT_CONCURRENCY rounds, each ended by the deadline) with a margin for recording, so
    a live scheduler never loses its claim to another and no attempt is sent twice."""
    return math.ceil(math.ceil(ENDPOINT_BACKLOG / PER_ENDPOINT_CONCURRENCY) * timeout) + 30


LEASE_SECONDS = lease_seconds()


def poll_seconds() -> float:
    """How often the scheduler looks for due attempts (`PAYGATE_WEBHOOK_POLL_SECONDS`, default 1 s)."""
    try:
        return max(0.05, float(os.environ.get("PAYGATE_WEBHOOK_POLL_SECONDS", "1")))
    except ValueError:
        return 1.0


_TABLE: sa.Table = Delivery.__table__  # type: ignore[attr-defined]
_ENDPOINTS: sa.Table = WebhookEndpoint.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Claimed(Attempt):
    lease: str
    livemode: bool


def claim_query(now: int, limit: int, full: Sequence[str] = ()) -> sa.Select[Any]:
    """Due, unleased attempts in due order then event order, skipping endpoints in `full` and attempts whose object
    has an older pending event for the same endpoint; locked (SKIP LOCKED) on PostgreSQL."""
    d, e = _TABLE, _ENDPOINTS
    older = d.alias("older")
    blocked = sa.exists().where(older.c.endpoint_id == d.c.endpoint_id, older.c.object_id == d.c.object_id,
                                older.c.status == DeliveryStatus.PENDING,
                                older.c.event_sort_key < d.c.event_sort_key)
    conditions = [d.c.status == DeliveryStatus.PENDING, d.c.due_at <= now,
                  sa.or_(d.c.locked_until.is_(None), d.c.locked_until < now),
                  e.c.disabled.is_(False), e.c.deleted_at.is_(None), ~blocked]
    if full:
        conditions.append(d.c.endpoint_id.not_in(sorted(full)))
    # Core rows, not ORM objects: the claim is the largest part of a delivery's database work (issue 13 profile).
    return (
        sa.select(d.c.id, d.c.event_id, d.c.endpoint_id, d.c.attempt, e.c.url, e.c.livemode, e.c.secret,
                  e.c.previous_secret, e.c.previous_secret_expires_at)
        .select_from(d.join(e, e.c.id == d.c.endpoint_id))
        .where(*conditions)
        .order_by(d.c.due_at, d.c.event_sort_key)
        .limit(limit)
        .with_for_update(of=d, skip_locked=True)
    )


# PostgreSQL only, for the claim's transaction. The claim must walk `ix_event_deliveries_pending` in its order and
# stop after a batch. PostgreSQL's planner picks that walk only when its statistics are right. With stale ones (a
# table that grew faster than autovacuum analyses it, or a sudden backlog after months of mostly delivered rows) it
# read every pending attempt of the endpoint and sorted them all: 45 ms a claim at 17,000 pending, so a backlog
# slowed its own delivery threefold (bench/webhooks.py, 2026-11-27 fourth session). With sorting priced out, the
# index's order is the only plan left: about 1 ms a claim, whatever the backlog.
ORDERED_WALK = "SET LOCAL enable_sort = off"


async def claim(db: Database, now: int, box: SecretBox, limit: int = BATCH_SIZE,
                lease_for: int = LEASE_SECONDS, room: Mapping[str, int] | None = None) -> list[Claimed]:
    """Up to `limit` due attempts, leased to the caller. `room`: how many more attempts each endpoint the caller
    already holds may take (ENDPOINT_BACKLOG for any other); a row beyond its endpoint's room is left unclaimed."""
    room = dict(room or {})
    d = _TABLE
    query = claim_query(now, limit, [endpoint for endpoint, left in room.items() if left <= 0])
    lease = random_base62(16)
    async with db.transaction() as session:
        conn = await session.connection()
        if db.is_postgres:
            await conn.exec_driver_sql(ORDERED_WALK)
        rows = []
        for row in await conn.execute(query):
            left = room.setdefault(row.endpoint_id, ENDPOINT_BACKLOG)
            if left > 0:  # otherwise left as it is: its row lock ends with this transaction
                room[row.endpoint_id] = left - 1
                rows.append(row)
        if not rows:
            return []
        by_url: dict[str, list[str]] = {}
        for row in rows:
            by_url.setdefault(row.url, []).append(row.id)
        for url, ids in by_url.items():  # one statement per endpoint URL, not one per attempt
            await conn.execute(sa.update(d).where(one_of(d.c.id, ids, postgres=db.is_postgres))
                               .values(locked_until=now + lease_for, lease=lease, url=url))
        event_ids = sorted({row.event_id for row in rows})
        events = {ev.id: ev for ev in await session.exec(
            select(Event).where(one_of(col(Event.id), event_ids, postgres=db.is_postgres)))}
        pending = await pending_counts(session, event_ids)
        secrets_of: dict[str, tuple[str, ...]] = {}
        out: list[Claimed] = []
        for row in rows:
            proto = event_to_proto(events[row.event_id], pending.get(row.event_id, 0))
            if row.endpoint_id not in secrets_of:
                try:
                    secrets_of[row.endpoint_id] = tuple(secrets_for(
                        row.secret, row.previous_secret, row.previous_secret_expires_at, now, box))
                except Unavailable:
                    secrets_of[row.endpoint_id] = ()  # sealed under a key not configured here: these attempts fail
            out.append(Claimed(delivery_id=row.id, event_id=row.event_id, endpoint_id=row.endpoint_id,
                               attempt=row.attempt, url=row.url, secrets=secrets_of[row.endpoint_id],
                               body=event_body(proto), lease=lease, livemode=row.livemode))
    return out


_RECORD = (
    sa.update(_TABLE).where(_TABLE.c.id == sa.bindparam("b_id"))
    .values(status=sa.bindparam("b_status"), http_status=sa.bindparam("b_http_status"),
            latency_ms=sa.bindparam("b_latency_ms"), response_excerpt=sa.bindparam("b_excerpt"),
            attempted_at=sa.bindparam("b_attempted_at"), next_attempt_at=sa.bindparam("b_next_attempt_at"),
            locked_until=None)
)

# PostgreSQL: the same for a whole batch as one statement over arrays (`unnest`), where an executemany sends one
# statement per row (a batch holds up to RECORD_BATCH outcomes; each statement is a message and an execution).
_OUTCOMES = sa.func.unnest(
    sa.cast(sa.bindparam("ids"), ARRAY(sa.String)), sa.cast(sa.bindparam("statuses"), ARRAY(sa.String)),
    sa.cast(sa.bindparam("http_statuses"), ARRAY(sa.Integer)), sa.cast(sa.bindparam("latencies"), ARRAY(sa.BigInteger)),
    sa.cast(sa.bindparam("excerpts"), ARRAY(sa.String)), sa.cast(sa.bindparam("next_ats"), ARRAY(sa.BigInteger)),
).table_valued("id", "status", "http_status", "latency_ms", "excerpt", "next_attempt_at").render_derived(name="outcome")
_RECORD_ALL = (
    sa.update(_TABLE).where(_TABLE.c.id == _OUTCOMES.c.id)
    .values(status=_OUTCOMES.c.status, http_status=_OUTCOMES.c.http_status, latency_ms=_OUTCOMES.c.latency_ms,
            response_excerpt=_OUTCOMES.c.excerpt, attempted_at=sa.bindparam("attempted_at"),
            next_attempt_at=_OUTCOMES.c.next_attempt_at, locked_until=None)
)


def _record_all(updates: list[dict[str, Any]], now: int) -> tuple[sa.Update, dict[str, Any]]:
    return _RECORD_ALL, {"ids": [u["b_id"] for u in updates], "statuses": [u["b_status"] for u in updates],
                         "http_statuses": [u["b_http_status"] for u in updates],
                         "latencies": [u["b_latency_ms"] for u in updates],
                         "excerpts": [u["b_excerpt"] for u in updates],
                         "next_ats": [u["b_next_attempt_at"] for u in updates], "attempted_at": now}


async def record(db: Database, results: list[tuple[Claimed, Outcome]], now: int,
                 rand: random.Random | None = None) -> int:
    """The outcomes of many attempts in one transaction: one read of the rows (locked), one UPDATE executed for all
    of them, and the next attempts of the failures with time left; the number recorded. An outcome whose row is
    no longer pending under its lease is dropped (endpoint deleted, or taken over after the lease ran out)."""
    if not results:
        return 0
    async with db.transaction() as session:
        conn = await session.connection()
        rows = {row.id: row for row in await conn.execute(
            sa.select(_TABLE.c.id, _TABLE.c.lease, _TABLE.c.status, _TABLE.c.attempt, _TABLE.c.window_start,
                      _TABLE.c.event_id, _TABLE.c.endpoint_id, _TABLE.c.merchant_id, _TABLE.c.object_id,
                      _TABLE.c.event_sort_key, _TABLE.c.url)
            .where(one_of(_TABLE.c.id, [item.delivery_id for item, _ in results], postgres=db.is_postgres))
            .with_for_update())}
        updates: list[dict[str, Any]] = []
        for item, outcome in results:
            row = rows.get(item.delivery_id)
            if row is None or row.status != DeliveryStatus.PENDING or row.lease != item.lease:
                continue
            next_at = None if outcome.ok else retry.next_attempt_at(row.attempt, now, row.window_start, rand)
            updates.append({
                "b_id": row.id, "b_status": DeliveryStatus.SUCCEEDED if outcome.ok else DeliveryStatus.FAILED,
                "b_http_status": outcome.http_status, "b_latency_ms": outcome.latency_ms,
                "b_excerpt": outcome.excerpt, "b_attempted_at": now, "b_next_attempt_at": next_at})
            if next_at is not None:
                session.add(Delivery(
                    id=new_id("evtd"), event_id=row.event_id, endpoint_id=row.endpoint_id,
                    merchant_id=row.merchant_id, object_id=row.object_id, event_sort_key=row.event_sort_key,
                    attempt=row.attempt + 1, due_at=next_at, window_start=row.window_start, url=row.url))
        if updates and db.is_postgres:
            await conn.execute(*_record_all(updates, now))
        elif updates:
            await conn.execute(_RECORD, updates)
    return len(updates)


class _Recorder:
    """Writes outcomes as they arrive: whatever came while one write was committing goes in the next."""

    def __init__(self, db: Database, now: Callable[[], int], done: Callable[[list[Claimed]], None]) -> None:
        self.db, self.now, self.done = db, now, done
        self.queue: list[tuple[Claimed, Outcome]] = []
        self.wake = asyncio.Event()
        self.flushed = asyncio.Event()
        self.generation = 0  # flushes so far
        self.closing = False
        self.task = asyncio.create_task(self._run())

    def put(self, item: Claimed, outcome: Outcome) -> None:
        self.queue.append((item, outcome))
        self.wake.set()

    async def _run(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.queue:
                batch, self.queue = self.queue[:RECORD_BATCH], self.queue[RECORD_BATCH:]
                try:
                    await record(self.db, batch, self.now())
                except Exception as e:  # not recorded: the attempts are taken up again after the lease
                    log.error("webhook outcomes not recorded", extra={"error": type(e).__name__,
                                                                      "attempts": len(batch)})
                self.done([item for item, _ in batch])
                self.generation += 1
                self.flushed.set()
            if self.closing:
                return

    async def progress(self, since: int, timeout: float) -> None:
        """Returns once a write after generation `since` has ended, or after `timeout`."""
        if self.generation == since:
            self.flushed.clear()
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a cancellation that arrives as the
            # event fires, and a scheduler told to stop then runs on to the end of its delivery budget.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self.flushed.wait()

    async def close(self) -> None:
        self.closing = True
        self.wake.set()
        await self.task


async def deliver_due(db: Database, box: SecretBox, *, now: int | None = None,
                      timeout: float = TIMEOUT_SECONDS, allow_private: bool = False,
                      resolve: urls.Resolver = urls.resolve, signature_headers: tuple[str, ...] = (HEADER,),
                      budget: float = RUN_BUDGET_SECONDS, claims: int | None = None) -> int:
    """The scheduler job's work: claims while it has room and there is due work, for at most `budget` seconds (or
    `claims` claims), then finishes the attempts it holds; the number of attempts it sent.

    `now` defaults to the database's clock (the runtime's); tests pass it to step through a retry schedule without
    waiting.
    """
    def at() -> int:
        return db.clock.now() if now is None else now
    lease_for = lease_seconds(timeout)
    busy: collections.Counter[str] = collections.Counter()  # endpoint → claimed, not yet recorded

    def recorded(items: list[Claimed]) -> None:
        for item in items:
            busy[item.endpoint_id] -= 1
            if busy[item.endpoint_id] <= 0:
                del busy[item.endpoint_id]

    out = Sender(timeout=timeout, allow_private=allow_private, resolve=resolve, signature_headers=signature_headers)
    recorder = _Recorder(db, at, recorded)
    waiting: dict[asyncio.Task[None], Claimed] = {}  # claimed, no connection yet: may be given back unsent
    running: set[asyncio.Task[None]] = set()
    held: dict[asyncio.Task[None], Claimed] = {}  # claimed, no outcome yet (or cancelled before it had one)

    def start(item: Claimed) -> None:
        def connected() -> None:
            waiting.pop(task, None)

        async def one() -> None:
            outcome = await out.send(item, at, started=connected)
            metrics.webhook_delivered(outcome.ok)
            recorder.put(item, outcome)

        def ended(task: asyncio.Task[None]) -> None:
            running.discard(task)
            if not task.cancelled():
                held.pop(task, None)

        task = asyncio.create_task(one())
        waiting[task] = item
        held[task] = item
        running.add(task)
        task.add_done_callback(ended)

    claiming: asyncio.Future[list[Claimed]] | None = None
    sent = 0
    started = time.monotonic()
    poll = poll_seconds()
    out_of_time = False
    try:
        while claims is None or claims > 0:
            if time.monotonic() - started >= budget:
                out_of_time = True
                break
            seen = recorder.generation
            free = MAX_IN_FLIGHT - sum(busy.values())
            if free < BATCH_SIZE // 2:
                await recorder.progress(seen, poll)
                continue
            asked = min(BATCH_SIZE, free)
            # Shielded: a stop that lands as the claim commits must still learn what it took, to give it back.
            claiming = asyncio.ensure_future(claim(db, at(), box, asked, lease_for,
                                                   room={e: ENDPOINT_BACKLOG - n for e, n in busy.items()}))
            batch = await asyncio.shield(claiming)
            claiming = None
            claims = None if claims is None else claims - 1
            for item in batch:
                busy[item.endpoint_id] += 1
                start(item)
            sent += len(batch)
            if len(batch) < asked and claims != 0:
                if not busy and recorder.generation == seen:
                    break  # nothing due, nothing in flight
                if not busy:
                    # Outcomes recorded while the claim ran may have freed later events of their objects that the
                    # claim's snapshot (PostgreSQL's READ COMMITTED statement) did not see yet: claim again.
                    continue
                # An attempt in flight may hold back a later event of its object until it is recorded.
                await recorder.progress(seen, poll)
        if out_of_time:
            # Attempts that have no connection yet are given back, so that a slow endpoint's backlog does not hold
            # the next run; those in flight end within their deadline and are recorded.
            given_back = list(waiting.items())
            for task, _ in given_back:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            returned = [item for task, item in given_back if task.cancelled()]
            if returned:
                sent -= len(returned)
                recorded(returned)
                try:
                    await release(db, returned)
                except Exception as e:  # not given back: taken up again after the lease
                    log.error("webhook claims not released", extra={"error": type(e).__name__})
        await asyncio.gather(*running, return_exceptions=True)
        await recorder.close()
    except asyncio.CancelledError:
        # Stopped (the process is shutting down, scheduler/app.py waits for this): the outcomes already known are
        # recorded and every other claim is given back, so that the next scheduler sends it at once. An attempt
        # cut off in flight may have arrived: it is sent again (at least once; receivers deduplicate on `id`).
        async def give_back() -> None:
            try:
                for task in running:
                    task.cancel()
                await asyncio.gather(*running, return_exceptions=True)
                await recorder.close()
                unsent = [item for task, item in held.items() if task.cancelled()]
                if claiming is not None:  # stopped while claiming: whatever the claim took, it gives back
                    with contextlib.suppress(Exception):
                        unsent += await claiming
                if unsent:
                    await release(db, unsent)
                    log.info("webhook claims given back", extra={"attempts": len(unsent)})
            except Exception as e:  # not given back: taken up again after the lease
                log.error("webhook claims not released", extra={"error": type(e).__name__})
            finally:
                recorder.task.cancel()

        # A second cancellation can reach this task while it gives back: a stopped run was seen with
        # `cancelling() == 2`; where the second one comes from is not pinned down. Cut there, the give-back left
        # every claim leased until its lease ran out: minutes of a stopped scheduler's events delayed, and no log
        # line (tests/e2e/webhooks/test_scheduler_shutdown.py saw it under load). The give-back runs in a task of
        # its own and is waited for whatever else arrives; it is bounded by its statements, and the stop that
        # waits for it by its grace period.
        cleanup = asyncio.ensure_future(give_back())
        while not cleanup.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(cleanup)
        raise
    except BaseException:
        # Stopped otherwise: what was claimed and not recorded is taken up again after the lease.
        for task in (*running, recorder.task):
            task.cancel()
        raise
    finally:
        await asyncio.shield(out.aclose())
    return sent


async def release(db: Database, items: list[Claimed]) -> None:
    """Gives claims back unsent (still pending, due as before), so that any scheduler may take them at once."""
    async with db.transaction() as session:
        conn = await session.connection()
        await conn.execute(
            sa.update(_TABLE).where(_TABLE.c.id == sa.bindparam("b_id"), _TABLE.c.lease == sa.bindparam("b_lease"),
                                    _TABLE.c.status == DeliveryStatus.PENDING)
            .values(locked_until=None, lease=""),
            [{"b_id": item.delivery_id, "b_lease": item.lease} for item in items])


async def run_once(db: Database, box: SecretBox, *, now: int | None = None,
                   limit: int = BATCH_SIZE, timeout: float = TIMEOUT_SECONDS, allow_private: bool = False,
                   resolve: urls.Resolver = urls.resolve, signature_headers: tuple[str, ...] = (HEADER,)) -> int:
    """One claim of up to `limit` due attempts, sent and recorded (each outcome as soon as it is known, so a slow
    endpoint delays nobody else); the number sent. Tests step through delivery with it."""
    del limit  # one claim takes BATCH_SIZE at most
    return await deliver_due(db, box, now=now, timeout=timeout, allow_private=allow_private,
                             resolve=resolve, signature_headers=signature_headers, budget=math.inf, claims=1)


async def deliver_webhooks(rt: Runtime) -> None:
    """The scheduler job (scheduler/jobs.py)."""
    settings = rt.settings.webhooks
    sent = await deliver_due(rt.db, rt.box, timeout=settings.timeout_seconds,
                             allow_private=settings.allow_private_targets,
                             signature_headers=settings.signature_headers)
    if sent:
        log.info("webhooks sent", extra={"attempts": sent})
