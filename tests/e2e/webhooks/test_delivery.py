"""Delivery to a real HTTP receiver on loopback, run in this process with a chosen `now` so that retry times are
checked exactly, without waiting for them."""

from __future__ import annotations

import hashlib
import hmac
import json

from server.webhooks import retry, verify_signature
from tests.conftest import ok
from tests.e2e.webhooks.conftest import create_customer, create_endpoint, deliver, events_of


def attempts(api, event_id):
    return ok(api.get(f"/v1/events/{event_id}/deliveries", params={"page_size": 100}))["deliveries"]


def made(api, event_id):
    """The attempts made, newest first (without the one scheduled next)."""
    return [a for a in attempts(api, event_id) if a["status"] != "pending"]


def test_the_signature_verifies_with_the_documented_scheme(service, api, receiver):
    ep = create_endpoint(api, receiver.url)
    create_customer(api)
    assert deliver(service) == 1
    [got] = receiver.received
    assert verify_signature(got.body, got.headers["paygate-signature"], ep["secret"])
    # The scheme by hand: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>, the key being the whole whsec_ string.
    parts = dict(p.split("=", 1) for p in got.headers["paygate-signature"].split(","))
    expected = hmac.new(ep["secret"].encode(), f"{parts['t']}.".encode() + got.body, hashlib.sha256).hexdigest()
    assert parts["v1"] == expected
    assert not verify_signature(got.body + b" ", got.headers["paygate-signature"], ep["secret"])


def test_the_body_is_the_event_as_the_api_shows_it(service, api, receiver):
    create_endpoint(api, receiver.url)
    create_customer(api)
    deliver(service)
    sent = receiver.received[0].event
    shown = ok(api.get(f"/v1/events/{sent['id']}"))
    assert sent["pending_webhooks"] == 1 and shown["pending_webhooks"] == 0  # counted when sent
    assert {**sent, "pending_webhooks": 0} == shown
    assert receiver.received[0].headers["paygate-event-id"] == sent["id"]


def test_an_attempt_is_logged_with_status_latency_and_excerpt(service, api, receiver):
    create_endpoint(api, receiver.url)
    create_customer(api)
    deliver(service)
    [attempt] = attempts(api, events_of(api)[0]["id"])
    assert attempt["status"] == "succeeded" and attempt["http_status"] == 200 and attempt["attempt"] == 1
    # A loopback receiver is a private target: what it answered is never stored (DESIGN §14).
    assert attempt["response_excerpt"] == "" and attempt["latency_ms"] >= 0
    assert attempt["next_attempt_at"] is None and attempt["id"].startswith("evtd_")


def test_a_receiver_failing_3_times_gets_the_event_exactly_when_the_backoff_says(service, api, receiver):
    receiver.answers = [(500, 0), (503, 0), (404, 0)]
    create_endpoint(api, receiver.url)
    create_customer(api)
    event = events_of(api)[0]
    now = event["created"]
    for n, answered in zip(range(1, 4), (500, 503, 404), strict=True):
        assert deliver(service, now=now) == 1
        failed = made(api, event["id"])[0]
        assert (failed["attempt"], failed["status"], failed["http_status"]) == (n, "failed", answered)
        nominal = retry.BASE_SECONDS * 2 ** (n - 1)
        assert nominal * 0.9 - 1 <= failed["next_attempt_at"] - now <= nominal * 1.1 + 1
        now = failed["next_attempt_at"]
        assert deliver(service, now=now - 1) == 0  # not a second early
        assert len(receiver.received) == n
    assert deliver(service, now=now) == 1
    log = attempts(api, event["id"])
    assert [a["status"] for a in log] == ["succeeded", "failed", "failed", "failed"]
    assert [a["attempt"] for a in log] == [4, 3, 2, 1]
    assert log[0]["created"] == now and len(receiver.received) == 4
    assert ok(api.get(f"/v1/events/{event['id']}"))["pending_webhooks"] == 0


def test_a_receiver_that_times_out_is_retried(service, api, receiver):
    receiver.answers = [(200, 2.0)]
    create_endpoint(api, receiver.url)
    create_customer(api)
    event = events_of(api)[0]
    assert deliver(service, now=event["created"], timeout=0.5) == 1
    [timed_out] = made(api, event["id"])
    assert timed_out["status"] == "failed" and timed_out["http_status"] == 0
    assert timed_out["response_excerpt"].startswith("timeout")
    assert deliver(service, now=timed_out["next_attempt_at"], timeout=0.5) == 1
    assert attempts(api, event["id"])[0]["status"] == "succeeded"
    assert [r.event["id"] for r in receiver.received] == [event["id"], event["id"]]


def test_retries_stop_after_three_days_and_the_delivery_is_marked_failed(service, api, receiver):
    receiver.default = (500, 0)
    create_endpoint(api, receiver.url)
    create_customer(api)
    event = events_of(api)[0]
    now = event["created"]
    while True:
        assert deliver(service, now=now) == 1
        last = made(api, event["id"])[0]
        if last["next_attempt_at"] is None:
            break
        now = last["next_attempt_at"]
    assert last["status"] == "failed" and now - event["created"] <= retry.WINDOW_SECONDS
    assert deliver(service, now=now + retry.WINDOW_SECONDS) == 0
    assert ok(api.get(f"/v1/events/{event['id']}"))["pending_webhooks"] == 0


def test_disabled_endpoints_and_unsubscribed_types_receive_nothing(service, api, receiver):
    disabled = create_endpoint(api, receiver.url)
    ok(api.post(f"/v1/webhook_endpoints/{disabled['id']}", json={"disabled": True}))
    create_endpoint(api, receiver.url, ["customer.deleted"])
    later_disabled = create_endpoint(api, receiver.url)
    create_customer(api)
    ok(api.post(f"/v1/webhook_endpoints/{later_disabled['id']}", json={"disabled": True}))
    assert deliver(service) == 0
    assert receiver.received == []


def test_resend_delivers_the_event_again_as_a_new_attempt(service, api, receiver):
    ep = create_endpoint(api, receiver.url)
    create_customer(api)
    deliver(service)
    event = events_of(api)[0]
    [queued] = ok(api.post(f"/v1/events/{event['id']}/resend", json={"endpoint_id": ep["id"]}))["deliveries"]
    assert queued["status"] == "pending" and queued["attempt"] == 2
    assert deliver(service) == 1
    assert [r.event["id"] for r in receiver.received] == [event["id"], event["id"]]
    assert receiver.received[1].headers["paygate-delivery-attempt"] == "2"


def test_during_a_rotation_both_secrets_sign_and_after_it_only_the_new_one(service, api, receiver):
    ep = create_endpoint(api, receiver.url)
    rotated = ok(api.post(f"/v1/webhook_endpoints/{ep['id']}/rotate_secret", json={"expires_in": 3600}))
    create_customer(api)
    event = events_of(api)[0]
    deliver(service, now=event["created"])
    got = receiver.received[0]
    header = got.headers["paygate-signature"]
    assert header.count("v1=") == 2
    assert verify_signature(got.body, header, ep["secret"], now=event["created"])
    assert verify_signature(got.body, header, rotated["secret"], now=event["created"])
    ok(api.post(f"/v1/events/{event['id']}/resend", json={}))
    after = rotated["previous_secret_expires_at"] + 1
    deliver(service, now=after)
    got = receiver.received[1]
    assert got.headers["paygate-signature"].count("v1=") == 1
    assert not verify_signature(got.body, got.headers["paygate-signature"], ep["secret"], now=after)
    assert verify_signature(got.body, got.headers["paygate-signature"], rotated["secret"], now=after)


def test_an_event_is_never_delivered_before_an_older_event_of_the_same_object(service, api, receiver):
    receiver.answers = [(500, 0)]
    create_endpoint(api, receiver.url)
    customer = create_customer(api)
    ok(api.post(f"/v1/customers/{customer['id']}", json={"name": "Later"}))
    created, updated = sorted(events_of(api), key=lambda e: e["type"])
    assert deliver(service, now=updated["created"]) == 1  # only customer.created; the update waits behind it
    retry_at = made(api, created["id"])[0]["next_attempt_at"]
    assert deliver(service, now=retry_at - 1) == 0
    assert deliver(service, now=retry_at) == 1
    assert deliver(service, now=retry_at) == 1
    assert [json.loads(r.body)["type"] for r in receiver.received] == \
        ["customer.created", "customer.created", "customer.updated"]
