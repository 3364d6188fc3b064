"""Claim, complete and replay idempotency keys.

A key is claimed (`in_progress`, with a lease) before the call runs and completed with the outcome after it.
A retry that finds the key in progress gets `idempotency_in_progress`; once the lease has lapsed (the first
process died), the retry takes the key over. A stored outcome is replayed for 24 h.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import grpc
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from server import clock
from server.db import Database
from server.errors import Conflict, InvalidArgument
from server.idempotency.models import IdempotencyKey

TTL_SECONDS = 24 * 3600
LEASE_SECONDS = 60
MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Stored:
    status_code: int  # grpc.StatusCode value[0]; 0 = OK
    payload: bytes  # the response message, or the serialized google.rpc.Status


def request_hash(method: str, request_bytes: bytes) -> str:
    return hashlib.sha256(method.encode() + b"\0" + request_bytes).hexdigest()


def _pk(merchant_id: str, livemode: bool, key: str) -> tuple[str, bool, str]:
    return (merchant_id, livemode, key)


async def claim(db: Database, merchant_id: str, livemode: bool, key: str, method: str,
                digest: str) -> Stored | None:
    """None when the caller now owns the key; the stored outcome when it is a replay."""
    if not key or len(key) > MAX_KEY_LENGTH:
        raise InvalidArgument(f"Idempotency-Key: must be 1 to {MAX_KEY_LENGTH} characters", field="Idempotency-Key")
    now = clock.now()
    row = IdempotencyKey(merchant_id=merchant_id, livemode=livemode, key=key, method=method,
                         request_hash=digest, state="in_progress", locked_until=now + LEASE_SECONDS,
                         created=now, expires_at=now + TTL_SECONDS)
    try:
        async with db.transaction() as session:
            session.add(row)
        return None
    except IntegrityError:
        pass
    async with db.transaction() as session:
        existing = await session.get(IdempotencyKey, _pk(merchant_id, livemode, key), with_for_update=True)
        if existing is None or existing.expires_at <= now:
            if existing is not None:
                await session.delete(existing)
                await session.flush()
            session.add(row)
            return None
        if existing.method != method or existing.request_hash != digest:
            raise InvalidArgument("Idempotency-Key: this key was already used with a different request",
                                  reason="idempotency_key_reused", field="Idempotency-Key")
        if existing.state == "done":
            return Stored(existing.status_code, existing.response or b"")
        if existing.locked_until > now:
            raise Conflict("a request with this Idempotency-Key is still in progress; retry later",
                           reason="idempotency_in_progress")
        existing.locked_until = now + LEASE_SECONDS  # the first attempt died: take the key over
        return None


async def complete(db: Database, merchant_id: str, livemode: bool, key: str, outcome: Stored) -> None:
    async with db.transaction() as session:
        await session.exec(
            sa.update(IdempotencyKey)
            .where(col(IdempotencyKey.merchant_id) == merchant_id, col(IdempotencyKey.livemode) == livemode,
                   col(IdempotencyKey.key) == key)
            .values(state="done", status_code=outcome.status_code, response=outcome.payload)
        )


async def release(db: Database, merchant_id: str, livemode: bool, key: str) -> None:
    """Forget a claim whose call failed on our side, so that a retry runs again."""
    async with db.transaction() as session:
        await session.exec(
            sa.delete(IdempotencyKey).where(col(IdempotencyKey.merchant_id) == merchant_id,
                                            col(IdempotencyKey.livemode) == livemode, col(IdempotencyKey.key) == key)
        )


async def purge_expired(db: Database) -> int:
    async with db.transaction() as session:
        result = await session.exec(
            sa.delete(IdempotencyKey).where(col(IdempotencyKey.expires_at) <= clock.now())
        )
        return int(result.rowcount or 0)


OK = grpc.StatusCode.OK.value[0]
