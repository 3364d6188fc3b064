"""DESIGN §14: webhook targets on loopback, private or link-local addresses are refused in both modes unless the
operator allows them (`PAYGATE_WEBHOOK_ALLOW_PRIVATE`); a delivery to such a target never stores what it answered;
a delivery connects to the address its one lookup vetted."""

from __future__ import annotations

import pytest

from tests.conftest import fails, ok
from tests.e2e.webhooks.conftest import attempts, create_customer, create_endpoint, deliver, events_of, set_url

PRIVATE_URLS = ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.0.0.5/hook",
                "http://169.254.169.254/latest", "http://[::1]/hook", "http://[::ffff:10.0.0.1]/hook",
                "http://[64:ff9b::a9fe:a9fe]/hook", "http://[2002:c0a8:101::]/hook"]


@pytest.mark.parametrize("url", PRIVATE_URLS)
def test_private_targets_are_refused_in_test_mode_without_the_operators_consent(strict_api, url):
    fails(strict_api.post("/v1/webhook_endpoints", json={"url": url, "enabled_events": ["*"]}),
          400, "parameter_invalid", "url")


def test_private_targets_are_refused_in_live_mode_without_the_operators_consent(strict_live_api):
    fails(strict_live_api.post("/v1/webhook_endpoints", json={"url": "https://10.1.2.3/hook",
                                                              "enabled_events": ["*"]}),
          400, "parameter_invalid", "url")


def test_an_update_to_a_private_target_is_refused_without_the_operators_consent(strict_api):
    ep = ok(strict_api.post("/v1/webhook_endpoints", json={"url": "http://93.184.215.14/hook",
                                                           "enabled_events": ["*"]}))
    fails(strict_api.post(f"/v1/webhook_endpoints/{ep['id']}", json={"url": "http://192.168.1.10/hook"}),
          400, "parameter_invalid", "url")


def test_a_stored_private_target_is_not_sent_to_without_the_operators_consent(strict_service, strict_api,
                                                                            receiver):
    ep = ok(strict_api.post("/v1/webhook_endpoints", json={"url": "http://93.184.215.14/hook",
                                                           "enabled_events": ["*"]}))
    set_url(strict_service, ep["id"], receiver.url)  # stored when test mode allowed loopback
    create_customer(strict_api)
    try:
        assert deliver(strict_service) >= 1
        assert receiver.received == []
        [refused] = [a for a in attempts(strict_api, events_of(strict_api)[0]["id"]) if a["status"] != "pending"]
        assert refused["status"] == "failed" and refused["response_excerpt"].startswith("not sent")
    finally:
        ok(strict_api.delete(f"/v1/webhook_endpoints/{ep['id']}"))


def test_a_delivery_to_an_allowed_private_target_stores_no_excerpt_of_its_answer(service, api, receiver):
    create_endpoint(api, receiver.url)
    create_customer(api)
    assert deliver(service) >= 1
    [attempt] = attempts(api, events_of(api)[0]["id"])
    assert attempt["status"] == "succeeded" and attempt["http_status"] == 200
    assert attempt["response_excerpt"] == ""


def test_a_delivery_connects_to_the_address_its_only_lookup_vetted(service, api, receiver):
    """A name re-pointed between the check and the connection (DNS rebinding) cannot move the delivery."""
    answers = [["127.0.0.1"]]
    lookups: list[str] = []

    async def rebinding(host: str) -> list[str]:
        if host != "rebind.example":
            raise OSError("not this test's name")  # endpoints that earlier tests left behind
        lookups.append(host)
        return answers.pop(0) if answers else ["192.0.2.1"]  # later lookups: an unroutable address

    port = receiver.url.split(":")[2].split("/")[0]
    create_endpoint(api, f"http://rebind.example:{port}/hooks")
    create_customer(api)
    assert deliver(service, resolve=rebinding) >= 1
    [got] = receiver.received
    assert got.headers["host"] == f"rebind.example:{port}"
    assert lookups == ["rebind.example"]
    assert attempts(api, events_of(api)[0]["id"])[0]["status"] == "succeeded"
