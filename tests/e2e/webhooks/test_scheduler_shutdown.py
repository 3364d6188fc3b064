"""A scheduler process stopped with SIGTERM in the middle of a delivery run (issue 13): it cancels the run, records
the outcomes it has, gives back the claims it holds and exits; the next scheduler delivers the rest at once.

Delivery is at least once: an attempt cut off in flight by the stop may have reached its receiver and is sent again
by the next scheduler; no other attempt arrives twice."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import time
from collections import Counter

import sqlalchemy as sa

from server.config import load_settings
from server.db import Database
from server.sealing import SecretBox
from server.webhooks import delivery
from tests.e2e.webhooks.conftest import Scheduler, create_customer, create_endpoint
from tests.e2e.webhooks.test_delivery_processes import all_events, wait_until_delivered

ENDPOINTS = ("/hooks", "/hooks/second")
IN_FLIGHT_PER_ENDPOINT = 8  # README "Webhooks": at most 8 attempts per endpoint in flight at once
STOP_LIVENESS_SECONDS = 10  # a liveness bound (a stuck stop took 30 s), not a speed requirement


def test_a_scheduler_stopped_mid_run_exits_and_the_next_delivers_every_event_once_per_endpoint(
        service, api, receiver, schedulers, clock_file, tmp_path):
    receiver.default = (200, 1.0)  # slow: the stop lands while requests are in flight and others wait their turn
    for path in ENDPOINTS:
        create_endpoint(api, receiver.url.removesuffix("/hooks") + path)
    for i in range(80):
        create_customer(api, f"c{i}")
    ids = {e["id"] for e in all_events(api)}
    assert len(ids) == 80
    first = Scheduler(service, tmp_path, clock_file)
    schedulers.append(first)
    receiver.wait_for(4 * IN_FLIGHT_PER_ENDPOINT, timeout=60)  # the first answers are in: some outcomes recorded

    first.process.send_signal(signal.SIGTERM)
    try:
        status = first.process.wait(timeout=STOP_LIVENESS_SECONDS)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the scheduler ignored SIGTERM for {STOP_LIVENESS_SECONDS} s") from None
    stopped_at = time.monotonic()
    assert status == 0
    before_stop = list(receiver.received)
    assert len({(r.event["id"], r.path) for r in before_stop}) < 2 * len(ids)  # stopped mid-run

    # The clock has not moved: nothing waits for a lease to run out.
    receiver.default = (200, 0.0)
    schedulers.append(Scheduler(service, tmp_path, clock_file))
    wait_until_delivered(api, len(ids))
    received = Counter((r.event["id"], r.path) for r in receiver.received)
    assert set(received) == {(event_id, path) for event_id in ids for path in ENDPOINTS}
    # Sent twice: only attempts in flight when the stop came (at most 8 per endpoint).
    twice = {key for key, n in received.items() if n > 1}
    assert max(received.values()) <= 2
    assert twice <= {(r.event["id"], r.path) for r in before_stop if r.at <= stopped_at}
    assert len(twice) <= len(ENDPOINTS) * IN_FLIGHT_PER_ENDPOINT


def test_a_second_stop_request_while_a_run_gives_back_its_claims_does_not_cut_the_give_back_short(
        service, api, receiver, monkeypatch):
    """A stop cancels the run; a second cancellation landing while the run gives its claims back (APScheduler's
    shutdown and the scheduler's own stop both cancel) must not leave those claims leased until the lease ends."""
    receiver.default = (200, 1.0)  # slow: the first cancellation finds attempts in flight and others waiting
    create_endpoint(api, receiver.url)
    for i in range(40):
        create_customer(api, f"d{i}")
    settings = load_settings({k: v for k, v in service.env.items() if k.startswith("PAYGATE_")})
    real_release = delivery.release
    releasing: list[asyncio.Event] = []

    async def slow_release(db: Database, items: list[delivery.Claimed]) -> None:
        releasing[0].set()
        await asyncio.sleep(0.3)
        await real_release(db, items)

    monkeypatch.setattr(delivery, "release", slow_release)

    async def scenario() -> int:
        releasing.append(asyncio.Event())
        db = Database(service.database_url)
        box = SecretBox(settings.encryption_key, service.workdir / "var")
        run = asyncio.create_task(delivery.deliver_due(db, box, allow_private=True))
        while len(receiver.received) < 2:
            await asyncio.sleep(0.05)
        run.cancel()
        await asyncio.wait_for(releasing[0].wait(), timeout=30)
        run.cancel()  # the second stop request, while the claims are being given back
        with contextlib.suppress(asyncio.CancelledError):
            await run
        try:
            async with db.read() as session:
                return int((await session.exec(sa.text(  # type: ignore[call-overload]
                    "SELECT count(*) FROM event_deliveries WHERE status = 'pending' AND lease <> ''"))).one()[0])
        finally:
            await db.close()

    assert asyncio.run(scenario()) == 0
