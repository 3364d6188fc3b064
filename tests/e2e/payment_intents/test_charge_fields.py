"""A charge's review and fraud_details as a client of this API family decodes them (DESIGN §12)."""

from __future__ import annotations

import httpx

from tests.conftest import ok
from tests.e2e.payment_intents.support import TEST_USDT, choose, create


def test_a_charge_without_review_shows_review_null(api: httpx.Client) -> None:
    pi = create(api)
    [charge] = choose(api, pi["id"], TEST_USDT)["charges"]
    assert "review" in charge and charge["review"] is None
    [again] = ok(api.get(f"/v1/payment_intents/{pi['id']}"))["charges"]
    assert again["review"] is None


def test_a_charge_shows_fraud_details_as_an_object(api: httpx.Client) -> None:
    pi = create(api)
    [charge] = choose(api, pi["id"], TEST_USDT)["charges"]
    assert charge["fraud_details"] == {}
