"""An id in a path whose prefix is no prefix of the resource (or of any resource) is still an id: it answers
`404 <resource>_not_found` (DESIGN §11, §17), never the facade's `404 not_found` for an unbound path. Words such as
`some_thing` stay unbound literals (DESIGN §12: tests/e2e/http/test_loose_ends.py)."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import fails

# An SDK's placeholder ids: a prefix paygate never makes, `_`, then base62 characters.
PO = "po_000000000000000000000000"


@pytest.mark.parametrize(("verb", "path", "error_code"), [
    ("GET", f"/v1/payouts/{PO}", "payout_not_found"),
    ("POST", f"/v1/payouts/{PO}/cancel", "payout_not_found"),
    ("GET", "/v1/customers/cust_000000000000000000000000", "customer_not_found"),
    ("DELETE", "/v1/customers/c_7Hq2Zk9LmN3pQ4rS5tU6vW8x", "customer_not_found"),
    ("GET", "/v1/payment_intents/payint_000000000000000000000000", "payment_intent_not_found"),
    ("POST", "/v1/payment_intents/intent_0A/cancel", "payment_intent_not_found"),
    ("GET", "/v1/products/product_000000000000000000000000", "product_not_found"),
    ("GET", "/v1/payment_links/plink_000000000000000000000000", "payment_link_not_found"),
    ("GET", "/v1/refunds/re_000000000000000000000000", "refund_not_found"),
    ("GET", "/v1/subscriptions/subs_000000000000000000000000", "subscription_not_found"),
    ("GET", "/v1/invoices/in_000000000000000000000000", "invoice_not_found"),
    ("GET", "/v1/events/ev_000000000000000000000000", "event_not_found"),
    ("DELETE", "/v1/webhook_endpoints/whe_000000000000000000000000", "webhook_endpoint_not_found"),
])
def test_an_id_of_an_unknown_shape_in_a_path_is_its_resource_not_found(api: httpx.Client, verb: str, path: str,
                                                                        error_code: str) -> None:
    body: dict[str, str] | None = {} if verb == "POST" else None
    fails(api.request(verb, path, json=body), 404, error_code)


def test_an_unknown_shape_id_to_approve_is_a_resource_not_found_not_an_unbound_path(api: httpx.Client) -> None:
    response = api.post("/v1/approval/apr_000000000000000000000000/approve", json={})
    error_code = response.json()["error_code"]
    assert response.status_code == 404 and error_code.endswith("_not_found") and error_code != "not_found", \
        response.text


@pytest.mark.parametrize("path", ["/v1/payouts/some_thing", "/v1/customers/no_such_path", "/v1/products/a_b"])
def test_a_word_with_an_underscore_is_still_an_unbound_path(api: httpx.Client, path: str) -> None:
    fails(api.get(path), 404, "not_found")
