"""Many attempts in flight at once (a pool of connections per endpoint, outcomes recorded in batches): the events of
one object still arrive in order, and one endpoint's failures in a batch are its own."""

from __future__ import annotations

import asyncio
import random

from server.webhooks import delivery
from tests.conftest import ok
from tests.e2e.webhooks.conftest import attempts, create_customer, create_endpoint, deliver, deliver_all
from tests.e2e.webhooks.receiver import Receiver, running


def all_events(api) -> list[dict]:
    """Every event of the merchant, oldest first."""
    out: list[dict] = []
    while True:
        page = ok(api.get("/v1/events", params={"page": len(out) // 100, "page_size": 100}))
        out += page["events"]
        if len(out) >= page["total"]:
            return list(reversed(out))


def test_the_events_of_one_object_arrive_in_order_while_many_are_in_flight(service, api, receiver):
    rng = random.Random(13)
    # Answers take 0-20 ms in random order: attempts sent side by side finish in any order.
    receiver.answers = [(200, rng.uniform(0, 0.02)) for _ in range(400)]
    create_endpoint(api, receiver.url)
    twice = [create_customer(api, f"o{i}") for i in range(8)]
    for i in range(30):
        create_customer(api, f"single{i}")
    for round_ in range(3):
        for customer in twice:
            ok(api.post(f"/v1/customers/{customer['id']}", json={"name": f"{customer['name']}-{round_}"}))
    events = all_events(api)
    assert len(events) == 8 * 4 + 30

    assert deliver_all(service) == len(events)
    received = [r.event for r in receiver.received]
    assert sorted(e["id"] for e in received) == sorted(e["id"] for e in events)  # each once
    for customer in twice:
        made = [e["id"] for e in events if e["data"]["object"]["id"] == customer["id"]]
        got = [e["id"] for e in received if e["data"]["object"]["id"] == customer["id"]]
        assert got == made, customer["name"]


def test_in_one_batch_a_failing_endpoint_fails_alone_while_the_others_succeed(service, api, other_api, receiver):
    with running(Receiver(default=(500, 0.0))) as failing:
        bad = create_endpoint(api, failing.url)
        good = create_endpoint(api, receiver.url + "/good")
        theirs = create_endpoint(other_api, receiver.url + "/theirs")
        for i in range(5):
            create_customer(api, f"c{i}")
        create_customer(other_api)
        try:
            assert deliver(service) == 5 * 2 + 1  # one claim: every attempt of the batch, recorded together
            assert len(failing.received) == 5 and len(receiver.received) == 6
            for event in all_events(api):
                by_endpoint = {a["endpoint_id"]: a for a in attempts(api, event["id"]) if a["status"] != "pending"}
                assert by_endpoint[good["id"]]["status"] == "succeeded"
                assert by_endpoint[good["id"]]["http_status"] == 200
                assert by_endpoint[bad["id"]]["status"] == "failed"
                assert by_endpoint[bad["id"]]["http_status"] == 500 and by_endpoint[bad["id"]]["next_attempt_at"]
                # The failure's next attempt is scheduled; the success has none.
                [retry] = [a for a in attempts(api, event["id"]) if a["status"] == "pending"]
                assert retry["endpoint_id"] == bad["id"] and retry["attempt"] == 2
            [other_event] = all_events(other_api)
            [attempt] = attempts(other_api, other_event["id"])
            assert attempt["endpoint_id"] == theirs["id"] and attempt["status"] == "succeeded"
        finally:
            ok(api.delete(f"/v1/webhook_endpoints/{bad['id']}"))  # its retry must not reach later tests


def test_a_run_claims_again_when_an_outcome_is_recorded_while_its_claim_runs(service, api, receiver, monkeypatch):
    # One object, two events: the second may go only once the first's outcome is recorded. The first answer takes
    # longer than the run's poll, so the run claims again while it is in flight, and that claim is held until the
    # outcome has been recorded: what a PostgreSQL claim whose statement snapshot predates that commit sees.
    monkeypatch.setenv("PAYGATE_WEBHOOK_POLL_SECONDS", "0.05")
    receiver.answers = [(200, 0.3)]
    create_endpoint(api, receiver.url)
    customer = create_customer(api, "raced")
    ok(api.post(f"/v1/customers/{customer['id']}", json={"name": "raced-2"}))
    real = delivery.claim

    async def late(*args, **kwargs):
        claimed = await real(*args, **kwargs)
        await asyncio.sleep(0.6)  # the attempt in flight is answered and its outcome committed meanwhile
        return claimed

    monkeypatch.setattr(delivery, "claim", late)
    deliver_all(service)
    made = [e["id"] for e in all_events(api) if e["data"]["object"]["id"] == customer["id"]]
    got = [r.event["id"] for r in receiver.received if r.event["data"]["object"]["id"] == customer["id"]]
    assert len(made) == 2 and got == made
