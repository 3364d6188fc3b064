"""The events API: events written with their state change (customers emit them), read, filtered, resent."""

from __future__ import annotations

import time

from tests.conftest import fails, ok
from tests.e2e.webhooks.conftest import create_customer, create_endpoint, events_of


def test_a_state_change_writes_its_event_with_a_snapshot(api):
    customer = create_customer(api, "Ann")
    [event] = events_of(api)
    assert event["id"].startswith("evt_") and event["object"] == "event" and event["type"] == "customer.created"
    assert len(event["api_version"]) == 10 and event["api_version"][4] == "-"
    assert event["livemode"] is False and event["pending_webhooks"] == 0
    assert abs(event["created"] - time.time()) < 60
    assert event["data"]["object"] == customer and event["data"]["previous_attributes"] is None


def test_an_update_event_carries_the_previous_values_of_the_changed_fields(api):
    customer = create_customer(api, "Ann")
    ok(api.post(f"/v1/customers/{customer['id']}", json={"name": "Anna"}))
    event = events_of(api, type="customer.updated")[0]
    assert event["data"]["object"]["name"] == "Anna"
    assert event["data"]["previous_attributes"]["name"] == "Ann"
    assert "email" not in event["data"]["previous_attributes"]


def test_decimal_numbers_of_the_snapshot_keep_their_exact_digits(api):
    customer = create_customer(api)
    event = api.get(f"/v1/events/{events_of(api)[0]['id']}")
    # The raw JSON, not a float round trip: the same text as the customer's own GET.
    raw_customer = api.get(f"/v1/customers/{customer['id']}").text
    assert '"total_expense":' + raw_customer.split('"total_expense":')[1].split(",")[0] in event.text


def test_retrieve_returns_the_event_as_data(api):
    create_customer(api)
    listed = events_of(api)[0]
    assert ok(api.get(f"/v1/events/{listed['id']}")) == listed


def test_list_filters_by_type_and_is_newest_first(api):
    customer = create_customer(api)
    ok(api.delete(f"/v1/customers/{customer['id']}"))
    assert [e["type"] for e in events_of(api)] == ["customer.deleted", "customer.created"]
    assert [e["type"] for e in events_of(api, type="customer.deleted")] == ["customer.deleted"]
    page = ok(api.get("/v1/events", params={"page": 1, "page_size": 1}))
    assert page["total"] == 2 and page["page"] == 1 and page["page_size"] == 1
    assert page["events"][0]["type"] == "customer.created"


def test_list_filters_by_created_range(api):
    create_customer(api)
    created = events_of(api)[0]["created"]
    assert len(events_of(api, created_gte=created, created_lte=created)) == 1
    assert events_of(api, created_gte=created + 1) == []
    assert events_of(api, created_lte=created - 1) == []


def test_an_inverted_created_range_is_refused(api):
    fails(api.get("/v1/events", params={"created_gte": 10, "created_lte": 5}), 400, "parameter_invalid",
          "created_gte")


def test_a_bad_page_size_is_refused(api):
    fails(api.get("/v1/events", params={"page_size": 0}), 400, "parameter_invalid", "page_size")


def test_unknown_event_is_not_found(api):
    fails(api.get("/v1/events/evt_nope"), 404, "event_not_found")
    fails(api.post("/v1/events/evt_nope/resend", json={}), 404, "event_not_found")
    fails(api.get("/v1/events/evt_nope/deliveries"), 404, "event_not_found")


def test_another_merchants_event_is_not_found(api, other_api):
    create_customer(other_api)
    event = events_of(other_api)[0]
    fails(api.get(f"/v1/events/{event['id']}"), 404, "event_not_found")
    assert events_of(api) == []


def test_live_and_test_events_never_mix(api, live_api):
    create_customer(api)
    assert events_of(live_api) == []
    fails(live_api.get(f"/v1/events/{events_of(api)[0]['id']}"), 404, "event_not_found")


def test_an_event_is_scheduled_for_each_subscribed_endpoint(api):
    create_endpoint(api, "http://127.0.0.1:9/a", ["*"])
    create_endpoint(api, "http://127.0.0.1:9/b", ["customer.created"])
    create_endpoint(api, "http://127.0.0.1:9/c", ["customer.deleted"])
    create_customer(api)
    event = events_of(api)[0]
    assert event["pending_webhooks"] == 2
    deliveries = ok(api.get(f"/v1/events/{event['id']}/deliveries"))
    assert deliveries["total"] == 2
    assert {d["url"] for d in deliveries["deliveries"]} == {"http://127.0.0.1:9/a", "http://127.0.0.1:9/b"}
    assert all(d["status"] == "pending" and d["attempt"] == 1 for d in deliveries["deliveries"])


def test_resend_to_an_unknown_endpoint_is_refused(api, other_api):
    create_customer(api)
    event = events_of(api)[0]
    fails(api.post(f"/v1/events/{event['id']}/resend", json={"endpoint_id": "we_nope"}),
          400, "parameter_invalid", "endpoint_id")
    foreign = create_endpoint(other_api, "http://127.0.0.1:9/x")
    fails(api.post(f"/v1/events/{event['id']}/resend", json={"endpoint_id": foreign["id"]}),
          400, "parameter_invalid", "endpoint_id")


def test_resend_to_a_disabled_endpoint_is_refused(api):
    ep = create_endpoint(api, "http://127.0.0.1:9/x")
    ok(api.post(f"/v1/webhook_endpoints/{ep['id']}", json={"disabled": True}))
    create_customer(api)
    fails(api.post(f"/v1/events/{events_of(api)[0]['id']}/resend", json={"endpoint_id": ep["id"]}),
          400, "parameter_invalid", "endpoint_id")


def test_resend_while_an_attempt_waits_returns_that_attempt(api):
    create_endpoint(api, "http://127.0.0.1:9/x")
    create_customer(api)
    event = events_of(api)[0]
    [queued] = ok(api.post(f"/v1/events/{event['id']}/resend", json={}))["deliveries"]
    assert queued["status"] == "pending" and queued["attempt"] == 1
    assert ok(api.get(f"/v1/events/{event['id']}/deliveries"))["total"] == 1


def test_deleting_an_endpoint_drops_its_pending_attempts(api):
    ep = create_endpoint(api, "http://127.0.0.1:9/x")
    create_customer(api)
    ok(api.delete(f"/v1/webhook_endpoints/{ep['id']}"))
    event = events_of(api)[0]
    assert event["pending_webhooks"] == 0
    assert ok(api.get(f"/v1/events/{event['id']}/deliveries"))["total"] == 0
