"""What the fuzzer found, one regression test per finding (black-box, over HTTP)."""

from __future__ import annotations

import httpx

from tests import seed
from tests.conftest import fails


def test_choosing_cards_where_cards_are_unavailable_is_400_not_501(api: httpx.Client) -> None:
    # 5xx says "our fault"; asking for a payment method this build does not offer is the caller's choice to change.
    intent = seed.payment_intent(api)
    fails(api.post(f"/v1/payment_intents/{intent['id']}", json={
        "payment_method_type": "cards", "payment_method_options": {"fiat": {"currency": "USD"}}}),
        400, "parameter_invalid", "payment_method_type")
