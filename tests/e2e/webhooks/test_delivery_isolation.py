"""One endpoint's trouble stays its own: a URL that cannot even be sent to, or a receiver that trickles its answer,
never holds back the deliveries of other endpoints and other merchants."""

from __future__ import annotations

import threading
import time

import pytest

from tests.conftest import fails, ok
from tests.e2e.webhooks.conftest import attempts, create_customer, create_endpoint, deliver, events_of, set_url
from tests.e2e.webhooks.receiver import trickling

POISON_URL = "http://xn--zz.com/"


@pytest.mark.parametrize("url", [POISON_URL, "http://a b.example/h", "http://exa\tmple.com/h",
                                 "http://" + "a" * 64 + ".example/h", "http://bad_label-.example/h"])
def test_a_url_whose_host_is_not_a_valid_name_is_refused_at_registration(api, url):
    fails(api.post("/v1/webhook_endpoints", json={"url": url, "enabled_events": ["*"]}),
          400, "parameter_invalid", "url")


def test_an_unsendable_url_does_not_block_another_merchants_delivery(service, api, other_api, receiver):
    poison = create_endpoint(api, receiver.url)
    set_url(service, poison["id"], POISON_URL)  # stored before registration refused such hosts
    create_customer(api)
    create_endpoint(other_api, receiver.url + "/other")
    create_customer(other_api)
    try:
        assert deliver(service) >= 2  # (and whatever earlier tests left due)
        [got] = receiver.received
        [theirs] = events_of(other_api)
        assert got.event["id"] == theirs["id"]
        assert attempts(other_api, theirs["id"])[0]["status"] == "succeeded"
        failed = [a for a in attempts(api, events_of(api)[0]["id"]) if a["status"] != "pending"]
        assert [a["status"] for a in failed] == ["failed"] and failed[0]["next_attempt_at"]
        assert "Traceback" not in failed[0]["response_excerpt"]
    finally:
        ok(api.delete(f"/v1/webhook_endpoints/{poison['id']}"))  # its retry must not reach later tests


def test_a_trickling_receiver_times_out_at_the_deadline_while_others_are_delivered(service, api, other_api,
                                                                                   receiver):
    deadline = 3.0
    with trickling() as slow_url:
        slow = create_endpoint(api, slow_url)
        create_customer(api)
        create_endpoint(other_api, receiver.url)
        create_customer(other_api)
        [theirs] = events_of(other_api)
        started = time.monotonic()
        run = threading.Thread(target=deliver, args=(service,), kwargs={"timeout": deadline})
        run.start()
        try:
            receiver.wait_for(1, timeout=deadline / 2)
            # Recorded at once, not when the slow endpoint's attempt ends.
            while attempts(other_api, theirs["id"])[0]["status"] == "pending":
                assert time.monotonic() - started < deadline, "the fast delivery waited for the slow one"
                time.sleep(0.05)
            assert attempts(other_api, theirs["id"])[0]["status"] == "succeeded"
            run.join(timeout=deadline + 10)
            assert not run.is_alive()
            elapsed = time.monotonic() - started
            assert deadline <= elapsed < deadline + 3
            [timed_out] = [a for a in attempts(api, events_of(api)[0]["id"]) if a["status"] != "pending"]
            assert timed_out["status"] == "failed" and timed_out["response_excerpt"].startswith("timeout")
        finally:
            run.join(timeout=60)
            ok(api.delete(f"/v1/webhook_endpoints/{slow['id']}"))
