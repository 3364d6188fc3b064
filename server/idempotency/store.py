"""Claim, complete and replay idempotency keys.

A key is claimed (`in_progress`, with a lease) before the call runs and completed with the outcome after it.
Every write transaction of the call marks the key `committed` inside that same transaction (`Lease.mark_committed`,
installed by the pipeline as the unit of work's before-commit hook), so the database itself says whether the
call's side effect may have happened. A retry that finds the key in progress gets `idempotency_in_progress`; once
the lease has lapsed (the first process died), the retry takes an `in_progress` key over, but never a `committed`
one: that request was applied and its answer lost, so it answers `idempotency_answer_lost` and runs nothing.
The lease's end (`locked_until`) doubles as a fencing token: an attempt whose key was taken over cannot commit.
A stored outcome is replayed for 24 h. It is kept sealed (server/sealing.py, DESIGN §14): an answer may hold a
webhook signing secret or a payment intent's client secret. An outcome stored in clear by code from before sealing
is replayed as it is: a serialized message never starts with the sealed form's `fernet:` (0x66 would be a field
tag of wire type 6, which does not exist), so the two cannot be confused, and such rows are gone within the 24 h.

States: in_progress → committed → done; in_progress → done (an outcome without a write); in_progress → (deleted)
when the call failed on our side before any write transaction began to commit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import grpc
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from server.db import Database
from server.errors import Conflict, InvalidArgument, Unavailable
from server.idempotency.models import IdempotencyKey
from server.sealing import SecretBox

IN_PROGRESS, COMMITTED, DONE = "in_progress", "committed", "done"
ANSWER_LOST = "idempotency_answer_lost"
TTL_SECONDS = 24 * 3600
LEASE_SECONDS = 60
MAX_KEY_LENGTH = 255


@dataclass
class Lease:
    """Ownership of a claimed key by one attempt of a call."""

    merchant_id: str
    livemode: bool
    key: str
    token: int  # the claim's `locked_until`: a takeover always moves it later
    commit_began: bool = False  # a write transaction of this call has been marked and may have committed
    completed: bool = False  # the outcome is stored; later transactions (background work) leave the key alone

    async def mark_committed(self, session: AsyncSession) -> None:
        """Inside a write transaction of the call, just before its commit: the key says `committed` if and only if
        that transaction commits. Refuses (rolling the transaction back) when the key was taken over."""
        if self.completed:
            return
        result = await session.exec(
            sa.update(IdempotencyKey)
            .where(*_where(self.merchant_id, self.livemode, self.key), col(IdempotencyKey.locked_until) == self.token,
                   col(IdempotencyKey.state).in_((IN_PROGRESS, COMMITTED)))
            .values(state=COMMITTED)
        )
        if not result.rowcount:
            raise Conflict("Idempotency-Key: another attempt has taken this key over; this one stops",
                           reason="idempotency_in_progress")
        self.commit_began = True


@dataclass(frozen=True)
class Stored:
    status_code: int  # grpc.StatusCode value[0]; 0 = OK
    payload: bytes  # the response message, or the serialized google.rpc.Status


def request_hash(method: str, request_bytes: bytes) -> str:
    return hashlib.sha256(method.encode() + b"\0" + request_bytes).hexdigest()


def _pk(merchant_id: str, livemode: bool, key: str) -> tuple[str, bool, str]:
    return (merchant_id, livemode, key)


def _where(merchant_id: str, livemode: bool, key: str) -> tuple[Any, ...]:
    return (col(IdempotencyKey.merchant_id) == merchant_id, col(IdempotencyKey.livemode) == livemode,
            col(IdempotencyKey.key) == key)


async def claim(db: Database, merchant_id: str, livemode: bool, key: str, method: str,
                digest: str, *, box: SecretBox | None = None) -> Stored | Lease:
    """A `Lease` when the caller now owns the key; the stored outcome when it is a replay, opened with `box`."""
    if not key or len(key) > MAX_KEY_LENGTH:
        raise InvalidArgument(f"Idempotency-Key: must be 1 to {MAX_KEY_LENGTH} characters", field="Idempotency-Key")
    if box is not None and not box.can_seal(livemode=livemode):
        # Refused before the call runs: found at `complete`, its side effect would have committed and its answer
        # could not be kept.
        raise Unavailable("live requests with an Idempotency-Key need a configured encryption_key "
                          "(PAYGATE_ENCRYPTION_KEY): their answers are kept sealed")
    now = db.clock.now()
    lease = Lease(merchant_id, livemode, key, now + LEASE_SECONDS)
    row = IdempotencyKey(merchant_id=merchant_id, livemode=livemode, key=key, method=method,
                         request_hash=digest, state=IN_PROGRESS, locked_until=lease.token,
                         created=now, expires_at=now + TTL_SECONDS)
    try:
        async with db.transaction() as session:
            session.add(row)
        return lease
    except IntegrityError:
        pass
    async with db.transaction() as session:
        existing = await session.get(IdempotencyKey, _pk(merchant_id, livemode, key), with_for_update=True)
        if existing is None or existing.expires_at <= now:
            if existing is not None:
                await session.delete(existing)
                await session.flush()
            session.add(row)
            return lease
        if existing.method != method or existing.request_hash != digest:
            raise InvalidArgument("Idempotency-Key: this key was already used with a different request",
                                  reason="idempotency_key_reused", field="Idempotency-Key")
        if existing.state == DONE:
            return Stored(existing.status_code, _opened(existing.response or b"", box))
        if existing.locked_until > now:
            raise Conflict("a request with this Idempotency-Key is still in progress; retry later",
                           reason="idempotency_in_progress")
        if existing.state == COMMITTED:
            raise Conflict("Idempotency-Key: the request with this key was applied, but its answer was lost; "
                           "it will not run again: look its result up instead", reason=ANSWER_LOST)
        existing.locked_until = lease.token  # the first attempt died before any write: take the key over
        return lease


async def complete(db: Database, merchant_id: str, livemode: bool, key: str, outcome: Stored, *,
                   box: SecretBox | None = None) -> None:
    """Store the outcome to replay, sealed with `box`."""
    response = _sealed(outcome.payload, livemode, box)
    async with db.transaction() as session:
        await session.exec(
            sa.update(IdempotencyKey)
            .where(*_where(merchant_id, livemode, key))
            .values(state=DONE, status_code=outcome.status_code, response=response)
        )


def _sealed(payload: bytes, livemode: bool, box: SecretBox | None) -> bytes:
    # Without a box (the store's own tests, which hold no secrets) the outcome is kept as it is.
    return box.seal_bytes(payload, livemode=livemode) if box is not None else payload


def _opened(stored: bytes, box: SecretBox | None) -> bytes:
    return box.open_bytes(stored) if box is not None else stored


async def release(db: Database, merchant_id: str, livemode: bool, key: str) -> None:
    """Forget a claim whose call failed on our side before any write, so that a retry runs again. A key marked
    `committed` is never forgotten: its request may have been applied."""
    async with db.transaction() as session:
        await session.exec(
            sa.delete(IdempotencyKey).where(*_where(merchant_id, livemode, key),
                                            col(IdempotencyKey.state) == IN_PROGRESS)
        )


async def purge_expired(db: Database) -> int:
    async with db.transaction() as session:
        result = await session.exec(
            sa.delete(IdempotencyKey).where(col(IdempotencyKey.expires_at) <= db.clock.now())
        )
        return int(result.rowcount or 0)


OK = grpc.StatusCode.OK.value[0]
