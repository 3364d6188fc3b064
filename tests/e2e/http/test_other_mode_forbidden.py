"""The merchant's own live object named with its test key is `403 forbidden` (DESIGN §2: "a valid credential used
where it is not allowed (… test key on a live object)"; §14), for events, webhook endpoints and identity tokens as
for every other object: one ownership rule (server/scoping.py). A test object named with the live key stays
not found, and another merchant's object is never more than not found."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import fails, ok
from tests.harness import TLS

LIVE_HOOK = "https://hooks.example.com/live"


def _live_event(live_api: httpx.Client) -> dict[str, Any]:
    ok(live_api.post("/v1/customers", json={"name": "Live customer"}))  # writes customer.created in live mode
    return ok(live_api.get("/v1/events"))["events"][0]  # type: ignore[no-any-return]


def _live_endpoint(live_api: httpx.Client) -> dict[str, Any]:
    return ok(live_api.post("/v1/webhook_endpoints",  # type: ignore[no-any-return]
                            json={"url": LIVE_HOOK, "enabled_events": ["*"]}))


def _ephemeral_token(client: httpx.Client, email: str = "ann@example.com") -> str:
    return str(ok(client.post("/v1/customers/ephemeral_tokens", json={
        "idp_key": "email", "idp_subject": email, "provider": "telegram", "allow_create": True}))["token"])


def _auth_token(client: httpx.Client) -> str:
    resolved = ok(client.post("/v1/customers/identities/resolve", json={
        "ephemeral_token": _ephemeral_token(client), "refresh_token": True}))
    assert resolved["auth_token"].startswith("cat_"), resolved
    return str(resolved["auth_token"])


def test_a_live_event_read_with_the_test_key_is_forbidden(api, live_api):
    event = _live_event(live_api)
    assert event["livemode"] is True
    fails(api.get(f"/v1/events/{event['id']}"), 403, "forbidden")


def test_a_live_event_resent_with_the_test_key_is_forbidden(api, live_api):
    fails(api.post(f"/v1/events/{_live_event(live_api)['id']}/resend", json={}), 403, "forbidden")


def test_a_live_events_deliveries_listed_with_the_test_key_are_forbidden(api, live_api):
    fails(api.get(f"/v1/events/{_live_event(live_api)['id']}/deliveries"), 403, "forbidden")


def test_a_test_event_read_with_the_live_key_is_not_found(api, live_api):
    ok(api.post("/v1/customers", json={"name": "Test customer"}))
    event = ok(api.get("/v1/events"))["events"][0]
    fails(live_api.get(f"/v1/events/{event['id']}"), 404, "event_not_found")


def test_another_merchants_live_event_is_not_found(live_api, other_api):
    fails(other_api.get(f"/v1/events/{_live_event(live_api)['id']}"), 404, "event_not_found")


def test_a_live_webhook_endpoint_read_with_the_test_key_is_forbidden(api, live_api):
    fails(api.get(f"/v1/webhook_endpoints/{_live_endpoint(live_api)['id']}"), 403, "forbidden")


def test_a_live_webhook_endpoint_updated_with_the_test_key_is_forbidden(api, live_api):
    endpoint = _live_endpoint(live_api)
    fails(api.post(f"/v1/webhook_endpoints/{endpoint['id']}", json={"description": "x"}), 403, "forbidden")
    assert ok(live_api.get(f"/v1/webhook_endpoints/{endpoint['id']}"))["description"] == ""


def test_a_live_webhook_endpoint_deleted_with_the_test_key_is_forbidden(api, live_api):
    endpoint = _live_endpoint(live_api)
    fails(api.delete(f"/v1/webhook_endpoints/{endpoint['id']}"), 403, "forbidden")
    assert ok(live_api.get(f"/v1/webhook_endpoints/{endpoint['id']}"))["id"] == endpoint["id"]


def test_a_live_webhook_endpoint_secret_rotated_with_the_test_key_is_forbidden(api, live_api):
    fails(api.post(f"/v1/webhook_endpoints/{_live_endpoint(live_api)['id']}/rotate_secret", json={}),
          403, "forbidden")


def test_a_deleted_live_webhook_endpoint_is_not_found_with_either_key(api, live_api):
    endpoint = _live_endpoint(live_api)
    ok(live_api.delete(f"/v1/webhook_endpoints/{endpoint['id']}"))
    fails(api.get(f"/v1/webhook_endpoints/{endpoint['id']}"), 404, "webhook_endpoint_not_found")
    fails(live_api.get(f"/v1/webhook_endpoints/{endpoint['id']}"), 404, "webhook_endpoint_not_found")


def test_a_test_webhook_endpoint_read_with_the_live_key_is_not_found(api, live_api):
    endpoint = ok(api.post("/v1/webhook_endpoints", json={"url": LIVE_HOOK, "enabled_events": ["*"]}))
    fails(live_api.get(f"/v1/webhook_endpoints/{endpoint['id']}"), 404, "webhook_endpoint_not_found")


def test_a_live_ephemeral_token_resolved_with_the_test_key_is_forbidden(api, live_api):
    token = _ephemeral_token(live_api)
    fails(api.post("/v1/customers/identities/resolve", json={"ephemeral_token": token}), 403, "forbidden")
    assert ok(live_api.post("/v1/customers/identities/resolve", json={"ephemeral_token": token}))["customer_id"]


def test_a_live_auth_token_resolved_with_the_test_key_is_forbidden(api, live_api):
    fails(api.post("/v1/customers/identities/resolve", json={"auth_token": _auth_token(live_api)}),
          403, "forbidden")


def test_a_test_auth_token_resolved_with_the_live_key_is_an_unknown_token(api, live_api):
    fails(live_api.post("/v1/customers/identities/resolve", json={"auth_token": _auth_token(api)}),
          400, "parameter_invalid", "auth_token")


def test_another_merchants_live_auth_token_is_an_unknown_token(live_api, other_api, service, other_merchant):
    other_live = httpx.Client(base_url=service.http_url, auth=(other_merchant["live"]["secret_key"], ""), verify=TLS)
    with other_live:
        fails(other_live.post("/v1/customers/identities/resolve", json={"auth_token": _auth_token(live_api)}),
              400, "parameter_invalid", "auth_token")
