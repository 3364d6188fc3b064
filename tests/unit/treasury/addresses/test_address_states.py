"""The payout address state machines (its `status`, and its proof's `verification_status`) against their moves,
written out here by hand (DESIGN §15, §16).

The tables below are NOT derived from `server.treasury.addresses.states`: statuses are the strings stored in
`merchant_addresses`, and each row is one move of addresses.py (a proof, a wrong amount, an approver's decision) or
of the micro-deposit sender (verifications.py), so a wrong, missing or extra row in a product table fails here.
"""

from __future__ import annotations

import pytest

from server.treasury.addresses.states import (
    Event,
    NotSent,
    Status,
    UnexpectedState,
    VerificationClosed,
    VerificationEvent,
    VerificationStatus,
    allowed,
    next_status,
    next_verification,
    verification_allowed,
)

STATUSES = ["pending_verification", "pending_approval", "verified", "failed"]
EVENTS = ["proven", "proven_awaiting_approval", "tries_exhausted", "approve", "reject"]
LEGAL = {
    ("pending_verification", "proven"): "verified",  # proven; no approval outstanding
    ("pending_verification", "proven_awaiting_approval"): "pending_approval",  # a micro-deposit, or live mode
    ("pending_verification", "tries_exhausted"): "failed",  # the third wrong amount
    ("pending_verification", "approve"): "pending_verification",  # approved before its proof
    ("pending_verification", "reject"): "failed",
    ("pending_approval", "approve"): "verified",
    ("pending_approval", "reject"): "failed",
}
ILLEGAL = [(s, e) for s in STATUSES for e in EVENTS if (s, e) not in LEGAL]

VERIFICATION_STATUSES = ["pending", "sending", "sent", "verified", "failed"]
VERIFICATION_EVENTS = ["submitted", "confirmed", "dropped", "signature_matched", "amount_matched", "tries_exhausted",
                       "reject"]
VERIFICATION_LEGAL = {
    ("pending", "submitted"): "sending",  # the micro-deposit signed and recorded (verifications.py)
    ("pending", "signature_matched"): "verified",
    ("pending", "reject"): "failed",
    ("sending", "confirmed"): "sent",  # confirmed on chain: the merchant may give the amount
    ("sending", "dropped"): "pending",  # reverted, our cancel mined, or its nonce lost: sent again
    ("sending", "signature_matched"): "verified",  # proven while the micro-deposit is in flight
    ("sending", "reject"): "failed",
    ("sent", "amount_matched"): "verified",
    ("sent", "signature_matched"): "verified",
    ("sent", "tries_exhausted"): "failed",
    ("sent", "reject"): "failed",
    ("verified", "reject"): "verified",  # the proof stands; the address itself fails
}
VERIFICATION_ILLEGAL = [(s, e) for s in VERIFICATION_STATUSES for e in VERIFICATION_EVENTS
                        if (s, e) not in VERIFICATION_LEGAL]
AMOUNT_EVENTS = ("amount_matched", "tries_exhausted")


def test_the_address_statuses_and_events_are_the_stored_vocabulary() -> None:
    assert sorted(s.value for s in Status) == sorted(STATUSES)
    assert sorted(e.value for e in Event) == sorted(EVENTS)


def test_the_verification_statuses_and_events_are_the_stored_vocabulary() -> None:
    assert sorted(s.value for s in VerificationStatus) == sorted(VERIFICATION_STATUSES)
    assert sorted(e.value for e in VerificationEvent) == sorted(VERIFICATION_EVENTS)


@pytest.mark.parametrize(("status", "event", "after"), [(s, e, a) for (s, e), a in LEGAL.items()],
                         ids=[f"{s}-{e}" for (s, e) in LEGAL])
def test_each_legal_address_move_reaches_its_status(status: str, event: str, after: str) -> None:
    assert allowed(status, Event(event))
    assert next_status(status, Event(event)).value == after


@pytest.mark.parametrize(("status", "event"), [m for m in ILLEGAL if m[0] != "failed"],
                         ids=[f"{s}-{e}" for s, e in ILLEGAL if s != "failed"])
def test_every_other_address_move_is_refused_with_409(status: str, event: str) -> None:
    assert not allowed(status, Event(event))
    with pytest.raises(UnexpectedState) as refused:
        next_status(status, Event(event))
    assert refused.value.reason == "address_unexpected_state"
    assert refused.value.code.name == "ABORTED"


@pytest.mark.parametrize("event", EVENTS)
def test_a_failed_address_is_refused_with_address_verification_failed(event: str) -> None:
    with pytest.raises(VerificationClosed) as refused:
        next_status("failed", Event(event))
    assert refused.value.reason == "address_verification_failed"
    assert refused.value.code.name == "ABORTED"
    assert refused.value.message == "address: its verification failed; add the address again"


@pytest.mark.parametrize(("status", "event", "after"), [(s, e, a) for (s, e), a in VERIFICATION_LEGAL.items()],
                         ids=[f"{s}-{e}" for (s, e) in VERIFICATION_LEGAL])
def test_each_legal_verification_move_reaches_its_status(status: str, event: str, after: str) -> None:
    assert verification_allowed(status, VerificationEvent(event))
    assert next_verification(status, VerificationEvent(event)).value == after


@pytest.mark.parametrize(("status", "event"), [m for m in VERIFICATION_ILLEGAL if m[1] not in AMOUNT_EVENTS],
                         ids=[f"{s}-{e}" for s, e in VERIFICATION_ILLEGAL if e not in AMOUNT_EVENTS])
def test_every_other_verification_move_is_refused_with_409(status: str, event: str) -> None:
    assert not verification_allowed(status, VerificationEvent(event))
    with pytest.raises(UnexpectedState) as refused:
        next_verification(status, VerificationEvent(event))
    assert refused.value.reason == "address_unexpected_state"


@pytest.mark.parametrize(("status", "event"), [m for m in VERIFICATION_ILLEGAL if m[1] in AMOUNT_EVENTS],
                         ids=[f"{s}-{e}" for s, e in VERIFICATION_ILLEGAL if e in AMOUNT_EVENTS])
def test_an_amount_before_the_micro_deposit_is_confirmed_is_refused_with_verification_not_sent(status: str,
                                                                                             event: str) -> None:
    with pytest.raises(NotSent) as refused:
        next_verification(status, VerificationEvent(event))
    assert refused.value.reason == "verification_not_sent"
    assert refused.value.code.name == "ABORTED"
    assert refused.value.message == "address: the micro-deposit is not confirmed on chain yet"
