"""The scheduled pass over a card provider's recent payments (server/cards/recovery.py `sweep`): which of the payments
the provider listed are worth handing to `recovery.adopt`. Pure: the provider's own `created` filter is never trusted,
and payments that are not this merchant's paygate payments are not even looked at."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.cards.recovery import candidates
from server.rails.card import Payment

SINCE = 1_700_000_000
OURS = {"paygate_merchant_id": "mer_ours", "paygate_payment_intent_id": "pi_1", "paygate_charge_id": "ch_1"}


def payment(id_: str = "pi_provider_1", *, status: str = "succeeded", created: int = SINCE,
            metadata: dict[str, str] | None = None) -> Payment:
    return Payment(id=id_, status=status, client_secret=f"{id_}_secret_x", amount=1050, currency="usd", customer="",
                   payment_method="pm_1", metadata=OURS if metadata is None else metadata, created=created)


def test_a_payment_of_the_merchant_that_moved_money_in_the_window_is_a_candidate() -> None:
    paid, processing = payment(), payment("pi_provider_2", status="processing", created=SINCE + 60)
    assert candidates([paid, processing], merchant_id="mer_ours", since=SINCE) == [paid, processing]


def test_a_payment_made_before_the_window_is_not_one_whatever_the_provider_listed() -> None:
    assert candidates([payment(created=SINCE - 1)], merchant_id="mer_ours", since=SINCE) == []


@pytest.mark.parametrize("status", ["requires_payment_method", "requires_confirmation", "requires_action",
                                    "requires_capture", "canceled", ""])
def test_a_payment_that_moved_no_money_is_not_one(status: str) -> None:
    assert candidates([payment(status=status)], merchant_id="mer_ours", since=SINCE) == []


@pytest.mark.parametrize("metadata", [
    {},  # made at the provider by someone else than paygate (the merchant's other sales)
    {**OURS, "paygate_merchant_id": "mer_theirs"},  # another paygate merchant sharing the provider account
    {**OURS, "paygate_merchant_id": ""},
    {k: v for k, v in OURS.items() if k != "paygate_merchant_id"},
])
def test_a_payment_that_does_not_name_the_merchant_is_not_one(metadata: dict[str, str]) -> None:
    assert candidates([payment(metadata=metadata)], merchant_id="mer_ours", since=SINCE) == []


def test_a_payment_listed_twice_is_a_candidate_once() -> None:
    """A list paged while payments are being made can show one twice: it is handed on once."""
    first = payment(status="processing")
    again = replace(first, status="succeeded")
    assert candidates([first, payment("pi_provider_2"), again], merchant_id="mer_ours", since=SINCE) == [
        first, payment("pi_provider_2")]
