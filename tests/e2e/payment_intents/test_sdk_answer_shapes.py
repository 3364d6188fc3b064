"""Update and cancel answer the intent's own fields at the top of `data` beside the spec's shape, so the public SDK
(which reads the intent there) and a reader of the spec both decode one answer (DESIGN §17)."""

from __future__ import annotations

import httpx

from tests.conftest import ok
from tests.e2e.payment_intents.support import TEST_ETH, create, crypto

WRAPPER = {"payment_intents", "total", "page", "page_size"}


def test_update_answers_the_intent_at_the_top_of_data_with_its_deposit_address(api: httpx.Client) -> None:
    intent = create(api)
    data = ok(api.post(f"/v1/payment_intents/{intent['id']}", json=crypto(TEST_ETH)))
    assert (data["id"], data["object"], data["status"]) == (intent["id"], "payment_intent", "RequiresPaymentMethod")
    address = data["payment_method_options"]["crypto"]["deposit_address"]
    assert address.startswith("0x") and len(address) == 42


def test_update_still_answers_the_specs_one_entry_wrapper(api: httpx.Client) -> None:
    intent = create(api)
    data = ok(api.post(f"/v1/payment_intents/{intent['id']}", json=crypto(TEST_ETH)))
    assert (data["total"], data["page"], data["page_size"]) == (1, 0, 1)
    assert len(data["payment_intents"]) == 1
    assert data["payment_intents"][0] == {k: v for k, v in data.items() if k not in WRAPPER}


def test_cancel_answers_the_canceled_intent_at_the_top_of_data(api: httpx.Client) -> None:
    intent = create(api)
    data = ok(api.post(f"/v1/payment_intents/{intent['id']}/cancel", json={"reason": "requested_by_customer"}))
    assert (data["id"], data["object"], data["status"]) == (intent["id"], "payment_intent", "Canceled")
    assert data["cancellation_reason"] == "requested_by_customer" and data["canceled_at"] > 0


def test_cancel_answers_what_a_retrieve_then_shows(api: httpx.Client) -> None:
    intent = create(api)
    data = ok(api.post(f"/v1/payment_intents/{intent['id']}/cancel", json={}))
    assert data == ok(api.get(f"/v1/payment_intents/{intent['id']}"))
