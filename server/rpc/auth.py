"""Authentication of a call from its metadata, by the RPC's declared policy (`paygate.v1.auth`).

Secret keys arrive as `authorization: Basic base64(<key>:)` (the facade forwards the HTTP header as is) or
`authorization: Bearer <key>` from gRPC callers. Only values shaped like a key are looked up
(server/merchants/service.py `key_lookup`). A key is resolved at most once per call and never cached across calls:
several processes share one database, so a key revoked there stops working at once in every one of them, and a
rolled key stops when its grace ends (`usable`, on the runtime's clock).

The look-up is one indexed SELECT on a connection of its own in autocommit (on SQLite one call into aiosqlite's
thread; no BEGIN, no COMMIT, no ORM objects); a single statement reads one consistent row. Through an ORM read
session it was 13 % of a create-customer's CPU and 5 of its 20 aiosqlite thread round trips (bench/RESULTS.md).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from contextvars import ContextVar
from typing import Any

import aiosqlite
import sqlalchemy as sa
from google.protobuf.message import Message
from paygate.v1 import options_pb2
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from server.context import Caller
from server.db import Database
from server.db.engine import async_url
from server.db.postgres_pool import postgres_engine
from server.db.sqlite_driver import BUSY_TIMEOUT_MS
from server.errors import Forbidden, Unauthenticated
from server.merchants.models import ROLE_APPROVER
from server.merchants.service import key_lookup, usable
from server.request_string import credentials

# Keys resolved during the current call (set fresh by the pipeline for each call; see `new_call_cache`).
_resolved: ContextVar[dict[str, Caller | None] | None] = ContextVar("resolved_keys", default=None)


def new_call_cache() -> None:
    """Starts an empty per-call cache: a checkout key checked by the pipeline is not looked up again."""
    _resolved.set({})


def presented_key(authorization: str) -> str:
    scheme, _, value = authorization.strip().partition(" ")
    scheme = scheme.lower()
    if scheme == "bearer":
        return value.strip()
    if scheme == "basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise Unauthenticated("malformed Basic credentials") from None
        return decoded.partition(":")[0]
    raise Unauthenticated("use HTTP Basic with the secret key as the username")


_FIND_SQL = "SELECT merchant_id, livemode, kind, revoked_at, expires_at, id, role FROM api_keys WHERE lookup = ?"
_KEYS = sa.table("api_keys", sa.column("lookup"), sa.column("merchant_id"), sa.column("livemode"),
                 sa.column("kind"), sa.column("revoked_at"), sa.column("expires_at"), sa.column("id"),
                 sa.column("role"))
_FIND = sa.select(_KEYS.c.merchant_id, _KEYS.c.livemode, _KEYS.c.kind, _KEYS.c.revoked_at, _KEYS.c.expires_at,
                  _KEYS.c.id, _KEYS.c.role).where(_KEYS.c.lookup == sa.bindparam("lookup"))
Row = tuple[str, Any, str, Any, Any, str, str]  # merchant_id, livemode, kind, revoked_at, expires_at, id, role


class _SqliteKeys:
    """One aiosqlite connection in autocommit: a look-up is one call into its thread (through SQLAlchemy's pool it
    was five: cursor, execute, fetch, close, and the rollback of the connection's return)."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._conn: aiosqlite.Connection | None = None
        self._opening = asyncio.Lock()

    async def find(self, lookup: str) -> Row | None:
        conn = self._conn or await self._open()
        rows = list(await conn.execute_fetchall(_FIND_SQL, (lookup,)))
        return tuple(rows[0]) if rows else None

    async def _open(self) -> aiosqlite.Connection:
        async with self._opening:
            if self._conn is None:
                conn = await aiosqlite.connect(self._path, isolation_level=None)
                # WAL (set by the writer): readers wait for nobody, except in SQLite's rare busy moments.
                await conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
                self._conn = conn
            return self._conn

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None


class _EngineKeys:
    """PostgreSQL: a small autocommit pool of its own (one round trip: no BEGIN, no COMMIT, no reset on return)."""

    def __init__(self, url: str, transaction_pooling: bool = False) -> None:
        # One statement per checkout and no nesting: callers beyond three wait a moment for a kept connection
        # rather than open and close a backend each (server/db/postgres_pool.py).
        self._engine: AsyncEngine = postgres_engine(async_url(url), name="paygate-keys", pool_size=3,
                                                    max_overflow=0, isolation_level="AUTOCOMMIT",
                                                    pool_reset_on_return=None,
                                                    transaction_pooling=transaction_pooling)

    async def find(self, lookup: str) -> Row | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(_FIND, {"lookup": lookup})).first()
        return (row.merchant_id, row.livemode, row.kind, row.revoked_at, row.expires_at, row.id,
                row.role) if row else None

    async def close(self) -> None:
        await self._engine.dispose()


def _keys_store(url: str, transaction_pooling: bool) -> _SqliteKeys | _EngineKeys:
    if url.startswith("sqlite"):
        path = make_url(url).database
        if path and path != ":memory:":
            return _SqliteKeys(path)
    return _EngineKeys(url, transaction_pooling)


class Authenticator:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._keys: _SqliteKeys | _EngineKeys | None = None  # made on first use, in the serving loop

    async def close(self) -> None:
        if self._keys is not None:
            await self._keys.close()
            self._keys = None

    async def resolve(self, key: str) -> Caller | None:
        cache = _resolved.get()
        if cache is not None and key in cache:
            return cache[key]
        caller = await self._find(key)
        if cache is not None:
            cache[key] = caller
        return caller

    async def _find(self, key: str) -> Caller | None:
        """The caller of a usable key (neither revoked nor past a roll's grace) of the kind its shape says; None
        otherwise."""
        shaped = key_lookup(key)
        if shaped is None:
            return None
        lookup, kind = shaped
        if self._keys is None:
            self._keys = _keys_store(self._db.url, self._db.transaction_pooling)
        row = await self._keys.find(lookup)
        if row is None:
            return None
        merchant_id, livemode, row_kind, revoked_at, expires_at, key_id, role = row
        if not usable(revoked_at, expires_at, self._db.clock.now()) or row_kind != kind:
            return None
        return Caller(merchant_id, bool(livemode), row_kind, key_id=key_id, role=role or "")

    async def authenticate(self, policy: int, authorization: str | None) -> Caller | None:
        if policy == options_pb2.AUTH_POLICY_NONE:
            return None
        if not authorization:
            if policy in (options_pb2.AUTH_POLICY_UNSPECIFIED, options_pb2.AUTH_POLICY_SECRET_OR_APPROVER):
                raise Unauthenticated("an API key is required: HTTP Basic with the secret key as the username")
            return None  # the servicer checks the public key and client secret it was given
        key = presented_key(authorization)
        caller = await self.resolve(key) if key else None
        if caller is None:
            raise Unauthenticated("invalid API key")
        if caller.key_kind != "secret":
            raise Forbidden("a public key cannot be used on a server path; use the secret key")
        if caller.role == ROLE_APPROVER and policy != options_pb2.AUTH_POLICY_SECRET_OR_APPROVER:
            # Four eyes (DESIGN §15): an approver key decides approvals and does nothing else.
            raise Forbidden("an approver key may only use the approval API", reason="approver_key_restricted")
        return caller

    async def public_key_caller(self, key: str) -> Caller:
        """The merchant and mode behind a public key given in a request body (hosted checkout)."""
        caller = await self.resolve(key) if key.startswith("pk_") else None
        if caller is None or caller.key_kind != "public":
            raise Unauthenticated("key: not a valid public key")
        return caller

    async def check_checkout_credentials(self, request: Message) -> None:
        """A hosted checkout call without an API key names a valid key, and a client secret with a public key,
        before anything else of it is decoded (also inside the `request` string). The client secret itself is
        matched against its payment intent by the servicer."""
        key, client_secret = credentials(request)
        in_string = bool(getattr(request, "request", ""))
        if not key or (not client_secret and (not in_string or not key.startswith("sk_"))):
            # The `request` string may carry a secret key instead (a merchant's server); then no client secret.
            raise Unauthenticated("key and client_secret are required")
        if key.startswith("sk_"):
            caller = await self.resolve(key)
            if caller is None or caller.key_kind != "secret" or caller.role == ROLE_APPROVER:
                raise Unauthenticated("key: invalid API key")
            return
        await self.public_key_caller(key)
