"""The payout address state machines (DESIGN §15, §16): the address's `status`, and its proof's
`verification_status`, each one table of legal moves and one function that applies it.

The address (addresses.py):

    pending_verification ──proven──▶ verified
    pending_verification ──proven, an approver still to approve──▶ pending_approval ──approve──▶ verified
    pending_verification ──approve──▶ pending_verification (approved before its proof)
    pending_verification, pending_approval ──reject──▶ failed;  pending_verification ──tries exhausted──▶ failed

Its proof (the micro-deposit sender, verifications.py, and addresses.verify):

    pending ──submitted──▶ sending ──confirmed──▶ sent ──amount matched──▶ verified
    sending ──dropped──▶ pending (sent again, fresh nonce);   sent ──tries exhausted──▶ failed
    pending, sending, sent ──signature matched──▶ verified
    pending, sending, sent ──reject──▶ failed;   verified ──reject──▶ verified (the proof stands)

An address is created `pending_verification` / `pending`, or `failed` / `failed` when AML rejects it. A move missing
from a table raises its `UnexpectedState` (409); the refusals the API has always answered with keep their codes: any
move of a failed address is `address_verification_failed`, an amount given before the micro-deposit is confirmed
`verification_not_sent`.
"""

from __future__ import annotations

from enum import StrEnum

from server import state_machine


class Status(StrEnum):
    PENDING_VERIFICATION = "pending_verification"
    PENDING_APPROVAL = "pending_approval"  # control proven; an approver has still to approve it (DESIGN §16)
    VERIFIED = "verified"
    FAILED = "failed"  # AML rejected it, three wrong amounts, or an approver rejected it


class Event(StrEnum):
    PROVEN = "proven"  # control proven, and no approval outstanding (none needed, or given already)
    PROVEN_AWAITING_APPROVAL = "proven_awaiting_approval"  # control proven; an approver has still to approve it
    TRIES_EXHAUSTED = "tries_exhausted"  # the third wrong micro-deposit amount
    APPROVE = "approve"  # an approver's approval (approvals.py)
    REJECT = "reject"  # an approver's rejection


S, E = Status, Event
TRANSITIONS: dict[tuple[Status, Event], Status] = {
    (S.PENDING_VERIFICATION, E.PROVEN): S.VERIFIED,
    (S.PENDING_VERIFICATION, E.PROVEN_AWAITING_APPROVAL): S.PENDING_APPROVAL,
    (S.PENDING_VERIFICATION, E.TRIES_EXHAUSTED): S.FAILED,
    (S.PENDING_VERIFICATION, E.APPROVE): S.PENDING_VERIFICATION,  # approved first: verified once proven
    (S.PENDING_VERIFICATION, E.REJECT): S.FAILED,
    (S.PENDING_APPROVAL, E.APPROVE): S.VERIFIED,
    (S.PENDING_APPROVAL, E.REJECT): S.FAILED,
}


class VerificationStatus(StrEnum):
    PENDING = "pending"  # the micro-deposit is to be sent (or sent again after a lost nonce)
    SENDING = "sending"  # signed; waiting for its confirmation
    SENT = "sent"  # confirmed on chain: the merchant may give the amount
    VERIFIED = "verified"
    FAILED = "failed"


class VerificationEvent(StrEnum):
    SUBMITTED = "submitted"  # the micro-deposit was signed and recorded, about to be broadcast
    CONFIRMED = "confirmed"  # it reached the confirmation threshold
    DROPPED = "dropped"  # it reverted, our cancel of it was mined, or its nonce went elsewhere: sent again
    SIGNATURE_MATCHED = "signature_matched"  # the address's key signed its current message
    AMOUNT_MATCHED = "amount_matched"  # the merchant gave back the amount sent
    TRIES_EXHAUSTED = "tries_exhausted"  # the third wrong amount
    REJECT = "reject"  # an approver rejected the address


V, VE = VerificationStatus, VerificationEvent
VERIFICATION_TRANSITIONS: dict[tuple[VerificationStatus, VerificationEvent], VerificationStatus] = {
    (V.PENDING, VE.SUBMITTED): V.SENDING,
    (V.PENDING, VE.SIGNATURE_MATCHED): V.VERIFIED,
    (V.PENDING, VE.REJECT): V.FAILED,
    (V.SENDING, VE.CONFIRMED): V.SENT,
    (V.SENDING, VE.DROPPED): V.PENDING,
    (V.SENDING, VE.SIGNATURE_MATCHED): V.VERIFIED,  # proven while its micro-deposit is in flight
    (V.SENDING, VE.REJECT): V.FAILED,
    (V.SENT, VE.AMOUNT_MATCHED): V.VERIFIED,
    (V.SENT, VE.SIGNATURE_MATCHED): V.VERIFIED,
    (V.SENT, VE.TRIES_EXHAUSTED): V.FAILED,
    (V.SENT, VE.REJECT): V.FAILED,
    (V.VERIFIED, VE.REJECT): V.VERIFIED,  # proven, then rejected by an approver: the proof stands, the address fails
}


class UnexpectedState(state_machine.UnexpectedState):
    reason = "address_unexpected_state"
    noun = "payout address"


class VerificationClosed(UnexpectedState):
    reason = "address_verification_failed"

    def __init__(self, status: str, event: str) -> None:
        super().__init__(status, event)
        self.message = "address: its verification failed; add the address again"  # the API's answer, unchanged
        self.args = (self.message,)


class NotSent(UnexpectedState):
    reason = "verification_not_sent"

    def __init__(self, status: str, event: str) -> None:
        super().__init__(status, event)
        self.message = "address: the micro-deposit is not confirmed on chain yet"  # the API's answer, unchanged
        self.args = (self.message,)


def allowed(status: str, event: Event) -> bool:
    return (status, event) in TRANSITIONS


def next_status(status: str, event: Event) -> Status:
    """The address's status after `event`: refused with `VerificationClosed` once failed, else `UnexpectedState`."""
    refusal = VerificationClosed if status == S.FAILED else UnexpectedState
    return state_machine.apply(TRANSITIONS, Status, refusal, status, event)


def verification_allowed(status: str, event: VerificationEvent) -> bool:
    return (status, event) in VERIFICATION_TRANSITIONS


def next_verification(status: str, event: VerificationEvent) -> VerificationStatus:
    """The proof's status after `event`: an amount before the micro-deposit is confirmed is refused with `NotSent`,
    anything else missing from the table with `UnexpectedState`."""
    amount = event in (VE.AMOUNT_MATCHED, VE.TRIES_EXHAUSTED)
    refusal = NotSent if amount and status != V.SENT else UnexpectedState
    return state_machine.apply(VERIFICATION_TRANSITIONS, VerificationStatus, refusal, status, event)
