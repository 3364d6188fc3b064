"""Delivery by real scheduler processes (`paygate serve --only scheduler`): killed with SIGKILL mid-batch, and
two of them sharing one PostgreSQL."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from server.webhooks import delivery
from tests.conftest import ok
from tests.e2e.webhooks.conftest import Scheduler, create_customer, create_endpoint


def all_events(api) -> list[dict]:
    out: list[dict] = []
    while True:
        page = ok(api.get("/v1/events", params={"page": len(out) // 100, "page_size": 100}))
        out += page["events"]
        if len(out) >= page["total"]:
            return out


def wait_until_delivered(api, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        events = all_events(api)
        if len(events) >= count and all(e["pending_webhooks"] == 0 for e in events):
            return
        time.sleep(0.2)
    raise AssertionError("deliveries still pending")


def log_records(scheduler: Scheduler) -> list[dict]:
    records = []
    for line in Path(scheduler.log.name).read_text().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue  # not a structured log line
    return records


def logged_total(scheduler: Scheduler, message: str, field: str) -> int:
    """The sum of `field` over a scheduler process's log records `message` (one per job run that did work)."""
    return sum(int(r[field]) for r in log_records(scheduler) if r.get("msg") == message)


def wait_until_started(pair: list[Scheduler], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(any(r.get("msg") == "scheduler started" for r in log_records(s)) for s in pair):
            return
        assert all(s.process.poll() is None for s in pair), "a scheduler exited"
        time.sleep(0.1)
    raise AssertionError("schedulers did not start")


def test_a_scheduler_killed_mid_batch_loses_no_event(service, api, receiver, schedulers, clock_file, tmp_path):
    receiver.default = (200, 1.0)  # slow: the kill lands while requests are in flight
    create_endpoint(api, receiver.url)
    for i in range(delivery.BATCH_SIZE + 10):
        create_customer(api, f"c{i}")
    ids = {e["id"] for e in all_events(api)}
    assert len(ids) == delivery.BATCH_SIZE + 10
    first = Scheduler(service, tmp_path, clock_file)
    schedulers.append(first)
    receiver.wait_for(1)
    first.kill9()
    assert len(receiver.seen_ids) < len(ids)  # killed before finishing
    # The next scheduler starts after the dead one's lease has run out (the clock moved, nobody waited).
    clock_file.write_text(str(delivery.LEASE_SECONDS + 5))
    receiver.default = (200, 0.0)
    schedulers.append(Scheduler(service, tmp_path, clock_file))
    wait_until_delivered(api, len(ids))
    assert receiver.seen_ids == ids  # the receiver's dedup-by-id set has every event


def test_two_schedulers_never_send_the_same_attempt_twice_and_keep_each_objects_order(service, api, receiver,
                                                                                      schedulers, clock_file,
                                                                                      tmp_path):
    # PostgreSQL: claims with FOR UPDATE SKIP LOCKED; SQLite: claims under the database's one writer.
    receiver.default = (200, 0.01)
    create_endpoint(api, receiver.url)
    create_endpoint(api, receiver.url + "/second")
    count, updated = 150, 20
    pair = [Scheduler(service, tmp_path, clock_file), Scheduler(service, tmp_path, clock_file)]
    schedulers.extend(pair)
    # Both poll before the first event exists, so neither can have taken everything before the other started.
    wait_until_started(pair)
    customers = [create_customer(api, f"c{i}") for i in range(count)]
    for customer in customers[:updated]:
        ok(api.post(f"/v1/customers/{customer['id']}", json={"name": "renamed"}))
    events = count + updated
    wait_until_delivered(api, events)
    received = receiver.wait_for(2 * events)
    sent = Counter((r.headers["paygate-event-id"], r.headers["paygate-delivery-id"],
                    r.headers["paygate-delivery-attempt"]) for r in received)
    assert len(received) == 2 * events and max(sent.values()) == 1
    assert len({key[0] for key in sent}) == events
    # Per endpoint, a customer's update arrived after its creation.
    for path in ("/hooks", "/hooks/second"):
        types: dict[str, list[str]] = {}
        for r in received:
            if r.path == path:
                types.setdefault(r.event["data"]["object"]["id"], []).append(r.event["type"])
        assert all(types[c["id"]] == ["customer.created", "customer.updated"] for c in customers[:updated]), path
    # Both processes did work (a dead second scheduler would pass the checks above), and together sent each once.
    for scheduler in pair:
        scheduler.stop()
    by_process = [logged_total(scheduler, "webhooks sent", "attempts") for scheduler in pair]
    assert min(by_process) > 0 and sum(by_process) == 2 * events, by_process


def test_the_scheduler_log_never_shows_a_webhook_urls_query_string(service, api, receiver, schedulers, clock_file,
                                                                   tmp_path):
    create_endpoint(api, receiver.url + "?token=s3cr3t-in-query")
    create_customer(api)
    scheduler = Scheduler(service, tmp_path, clock_file)
    schedulers.append(scheduler)
    wait_until_delivered(api, 1)
    scheduler.stop()
    log = Path(scheduler.log.name).read_text()
    assert receiver.received and "s3cr3t-in-query" not in log
