"""provider_a's statuses become paygate's (server/rails/card.py `ProviderPaymentStatus`, `ProviderRefundStatus`) in
its adapter, and nowhere else: one table per kind in server/rails/provider_a/client.py. The values stay the strings
paygate stored before the enums (`charges.provider_status`, `provider_a_payload.status`), so no row changes."""

from __future__ import annotations

import logging

import pytest

from server.rails.card import ProviderPaymentStatus, ProviderRefundStatus
from server.rails.provider_a.client import payment_of, refund_of

STRIPE_PAYMENT_STATUSES = {
    "requires_payment_method": ProviderPaymentStatus.REQUIRES_PAYMENT_METHOD,
    "requires_confirmation": ProviderPaymentStatus.REQUIRES_CONFIRMATION,
    "requires_action": ProviderPaymentStatus.REQUIRES_ACTION,
    "processing": ProviderPaymentStatus.PROCESSING,
    "requires_capture": ProviderPaymentStatus.REQUIRES_CAPTURE,
    "succeeded": ProviderPaymentStatus.SUCCEEDED,
    "canceled": ProviderPaymentStatus.CANCELED,
}
STRIPE_REFUND_STATUSES = {
    "pending": ProviderRefundStatus.PENDING,
    "requires_action": ProviderRefundStatus.PENDING,  # not settled with the card's bank yet, like pending
    "succeeded": ProviderRefundStatus.SUCCEEDED,
    "failed": ProviderRefundStatus.FAILED,
    "canceled": ProviderRefundStatus.CANCELED,
}


@pytest.mark.parametrize(("stripe", "ours"), STRIPE_PAYMENT_STATUSES.items())
def test_each_stripe_payment_status_is_one_of_ours_with_the_value_stored_before(
        stripe: str, ours: ProviderPaymentStatus, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "paygate.provider_a"):
        status = payment_of({"id": "pi_1", "status": stripe}).status
    assert status is ours
    assert status.value == stripe  # charges.provider_status keeps its values: no migration
    assert not caplog.records


@pytest.mark.parametrize("stripe", ["requires_source", "", "SUCCEEDED"])
def test_an_unknown_payment_status_is_unknown_and_logged(stripe: str, caplog: pytest.LogCaptureFixture) -> None:
    """Nothing is decided on a status paygate cannot read: not paid, not failed, not unsubmitted."""
    with caplog.at_level(logging.WARNING, "paygate.provider_a"):
        status = payment_of({"id": "pi_1", "status": stripe}).status
    assert status is ProviderPaymentStatus.UNKNOWN
    [record] = caplog.records
    assert record.levelno == logging.WARNING and record.provider_status == stripe  # type: ignore[attr-defined]


def test_a_payment_without_a_status_is_unknown() -> None:
    assert payment_of({"id": "pi_1"}).status is ProviderPaymentStatus.UNKNOWN


@pytest.mark.parametrize(("stripe", "ours"), STRIPE_REFUND_STATUSES.items())
def test_each_stripe_refund_status_is_one_of_ours(stripe: str, ours: ProviderRefundStatus,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "paygate.provider_a"):
        assert refund_of({"id": "re_1", "status": stripe, "amount": 500}).status is ours
    assert not caplog.records


def test_an_unknown_refund_status_is_pending_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    """Pending: the refund stays Processing, its amount held, and is read back again; never failed on a word paygate
    cannot read (the provider may have paid)."""
    with caplog.at_level(logging.WARNING, "paygate.provider_a"):
        assert refund_of({"id": "re_1", "status": "reversed", "amount": 500}).status is ProviderRefundStatus.PENDING
    [record] = caplog.records
    assert record.provider_status == "reversed"  # type: ignore[attr-defined]
