"""The webhook endpoints API over HTTP: create (secret shown once), list, retrieve, update, delete, rotate, and
the refusals of each."""

from __future__ import annotations

import sqlalchemy as sa

from tests.conftest import fails, ok

URL = "https://hooks.example.com/paygate"
MAX_ENDPOINTS = 16  # per merchant and mode (README "Webhooks")


def test_create_returns_the_endpoint_with_its_whsec_secret(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["customer.created"],
                                                    "description": "orders"}))
    assert ep["id"].startswith("we_") and ep["object"] == "webhook_endpoint"
    assert ep["secret"].startswith("whsec_") and len(ep["secret"]) > 30
    assert ep["url"] == URL and ep["enabled_events"] == ["customer.created"] and ep["description"] == "orders"
    assert ep["disabled"] is False and ep["livemode"] is False and ep["api_version"]
    assert ep["previous_secret_expires_at"] is None


def test_retrieve_and_list_never_show_the_secret(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    assert ok(api.get(f"/v1/webhook_endpoints/{ep['id']}"))["secret"] == ""
    listed = ok(api.get("/v1/webhook_endpoints"))
    assert listed["total"] == 1 and listed["page"] == 0 and listed["page_size"] == 10
    assert [e["id"] for e in listed["webhook_endpoints"]] == [ep["id"]]
    assert listed["webhook_endpoints"][0]["secret"] == ""


def test_list_is_newest_first_and_paged(api):
    ids = [ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))["id"] for _ in range(3)]
    page = ok(api.get("/v1/webhook_endpoints", params={"page": 1, "page_size": 2}))
    assert page["total"] == 3 and [e["id"] for e in page["webhook_endpoints"]] == [ids[0]]


def test_update_changes_only_the_given_fields(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"], "description": "d"}))
    updated = ok(api.post(f"/v1/webhook_endpoints/{ep['id']}",
                          json={"enabled_events": ["refund.succeeded", "refund.failed"], "disabled": True}))
    assert updated["enabled_events"] == ["refund.succeeded", "refund.failed"] and updated["disabled"] is True
    assert updated["url"] == URL and updated["description"] == "d" and updated["secret"] == ""
    moved = ok(api.post(f"/v1/webhook_endpoints/{ep['id']}", json={"url": URL + "/v2", "disabled": False}))
    assert moved["url"] == URL + "/v2" and moved["disabled"] is False


def test_delete_makes_the_endpoint_not_found(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    assert ok(api.delete(f"/v1/webhook_endpoints/{ep['id']}")) == {}
    fails(api.get(f"/v1/webhook_endpoints/{ep['id']}"), 404, "webhook_endpoint_not_found")
    fails(api.delete(f"/v1/webhook_endpoints/{ep['id']}"), 404, "webhook_endpoint_not_found")
    assert ok(api.get("/v1/webhook_endpoints"))["total"] == 0


def test_rotation_shows_a_new_secret_once_and_keeps_the_old_one_for_the_overlap(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    rotated = ok(api.post(f"/v1/webhook_endpoints/{ep['id']}/rotate_secret", json={"expires_in": 3600}))
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != ep["secret"]
    assert rotated["previous_secret_expires_at"] - rotated["updated"] == 3600
    assert ok(api.get(f"/v1/webhook_endpoints/{ep['id']}"))["secret"] == ""


def test_rotation_with_expires_in_0_revokes_the_old_secret_at_once(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    rotated = ok(api.post(f"/v1/webhook_endpoints/{ep['id']}/rotate_secret", json={"expires_in": 0}))
    assert rotated["previous_secret_expires_at"] is None


def test_rotation_overlap_beyond_7_days_is_refused(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    fails(api.post(f"/v1/webhook_endpoints/{ep['id']}/rotate_secret", json={"expires_in": 8 * 86400}),
          400, "parameter_invalid", "expires_in")


def test_url_is_required(api):
    fails(api.post("/v1/webhook_endpoints", json={"enabled_events": ["*"]}), 400, "parameter_missing", "url")


def test_enabled_events_are_required(api):
    fails(api.post("/v1/webhook_endpoints", json={"url": URL}), 400, "parameter_missing", "enabled_events")


def test_a_malformed_event_type_is_refused(api):
    fails(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["Refund Succeeded"]}),
          400, "parameter_invalid", "enabled_events[0]")


def test_a_non_http_url_is_refused(api):
    fails(api.post("/v1/webhook_endpoints", json={"url": "ftp://example.com/x", "enabled_events": ["*"]}),
          400, "parameter_invalid", "url")


def test_loopback_and_plain_http_urls_are_allowed_in_test_mode(api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": "http://127.0.0.1:9/hook", "enabled_events": ["*"]}))
    assert ep["url"] == "http://127.0.0.1:9/hook"


def test_private_and_loopback_urls_are_refused_in_live_mode(strict_live_api):
    # A paygate whose operator has not allowed private targets (the tests' default service allows them).
    for url in ("https://127.0.0.1/hook", "https://10.1.2.3/hook", "https://localhost/hook",
                "https://[::1]/hook", "https://169.254.169.254/latest"):
        fails(strict_live_api.post("/v1/webhook_endpoints", json={"url": url, "enabled_events": ["*"]}),
              400, "parameter_invalid", "url")


def test_plain_http_is_refused_in_live_mode(live_api):
    fails(live_api.post("/v1/webhook_endpoints", json={"url": "http://93.184.215.14/hook", "enabled_events": ["*"]}),
          400, "parameter_invalid", "url")


def test_update_to_a_private_url_is_refused_in_live_mode(strict_live_api):
    ep = ok(strict_live_api.post("/v1/webhook_endpoints", json={"url": "https://93.184.215.14/hook",
                                                                "enabled_events": ["*"]}))
    fails(strict_live_api.post(f"/v1/webhook_endpoints/{ep['id']}", json={"url": "https://192.168.1.10/hook"}),
          400, "parameter_invalid", "url")


def test_unknown_endpoint_is_not_found(api):
    for call in (api.get, api.delete):
        fails(call("/v1/webhook_endpoints/we_nope"), 404, "webhook_endpoint_not_found")
    fails(api.post("/v1/webhook_endpoints/we_nope", json={"disabled": True}), 404, "webhook_endpoint_not_found")
    fails(api.post("/v1/webhook_endpoints/we_nope/rotate_secret", json={}), 404, "webhook_endpoint_not_found")


def test_another_merchants_endpoint_is_not_found(api, other_api):
    ep = ok(other_api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    fails(api.get(f"/v1/webhook_endpoints/{ep['id']}"), 404, "webhook_endpoint_not_found")
    fails(api.delete(f"/v1/webhook_endpoints/{ep['id']}"), 404, "webhook_endpoint_not_found")


def test_a_test_mode_endpoint_is_not_seen_with_the_live_key(api, live_api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    fails(live_api.get(f"/v1/webhook_endpoints/{ep['id']}"), 404, "webhook_endpoint_not_found")
    assert ok(live_api.get("/v1/webhook_endpoints"))["total"] == 0


def test_endpoints_beyond_the_quota_of_a_mode_are_refused(api, live_api):
    ids = [ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))["id"]
           for _ in range(MAX_ENDPOINTS)]
    body = fails(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}),
                 400, "parameter_invalid", "url")
    assert str(MAX_ENDPOINTS) in body["msg"]
    ok(live_api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))  # a quota per mode
    ok(api.delete(f"/v1/webhook_endpoints/{ids[0]}"))
    ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))


def test_signing_secrets_are_stored_encrypted(service, api):
    ep = ok(api.post("/v1/webhook_endpoints", json={"url": URL, "enabled_events": ["*"]}))
    rotated = ok(api.post(f"/v1/webhook_endpoints/{ep['id']}/rotate_secret", json={"expires_in": 3600}))
    engine = sa.create_engine(service.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            stored = conn.execute(sa.text("SELECT secret, previous_secret FROM webhook_endpoints WHERE id = :id"),
                                  {"id": ep["id"]}).one()
    finally:
        engine.dispose()
    text = " ".join(stored)
    assert ep["secret"] not in text and rotated["secret"] not in text and "whsec_" not in text
