"""Authentication of a call from its metadata, by the RPC's declared policy (`paygate.v1.auth`).

Secret keys arrive as `authorization: Basic base64(<key>:)` (the facade forwards the HTTP header as is) or
`authorization: Bearer <key>` from gRPC callers. Resolved keys are cached briefly: a request does not pay a
database round trip for its key, and a revoked key stops working within `CACHE_SECONDS`.
"""

from __future__ import annotations

import base64
import binascii
import time

from google.protobuf.message import Message
from paygate.v1 import options_pb2

from server.db import Database
from server.errors import Forbidden, Unauthenticated
from server.merchants.service import find_key
from server.rpc.context import Caller

CACHE_SECONDS = 30.0
_CACHE_LIMIT = 10_000


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


class Authenticator:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._cache: dict[str, tuple[float, Caller | None]] = {}

    async def resolve(self, key: str) -> Caller | None:
        hit = self._cache.get(key)
        now = time.monotonic()
        if hit and hit[0] > now:
            return hit[1]
        async with self._db.read() as session:
            row = await find_key(session, key)
        caller = Caller(row.merchant_id, row.livemode, row.kind) if row else None
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = (now + CACHE_SECONDS, caller)
        return caller

    async def authenticate(self, policy: int, authorization: str | None) -> Caller | None:
        if policy == options_pb2.AUTH_POLICY_NONE:
            return None
        if not authorization:
            if policy == options_pb2.AUTH_POLICY_UNSPECIFIED:
                raise Unauthenticated("an API key is required: HTTP Basic with the secret key as the username")
            return None  # the servicer checks the public key and client secret it was given
        key = presented_key(authorization)
        caller = await self.resolve(key) if key else None
        if caller is None:
            raise Unauthenticated("invalid API key")
        if caller.key_kind != "secret":
            raise Forbidden("a public key cannot be used on a server path; use the secret key")
        return caller

    async def public_key_caller(self, key: str) -> Caller:
        """The merchant and mode behind a public key given in a request body (hosted checkout)."""
        caller = await self.resolve(key) if key.startswith("pk_") else None
        if caller is None:
            raise Unauthenticated("key: not a valid public key")
        return caller


def require_checkout_credentials(request: Message) -> None:
    """A hosted checkout call names its public key and client secret before anything else is looked at.

    Calls whose credentials travel inside the `request` JSON string are checked by their servicer instead.
    """
    fields = request.DESCRIPTOR.fields_by_name
    if "request" in fields and request.request:  # type: ignore[attr-defined]
        return
    if not all(getattr(request, name, "") for name in ("key", "client_secret")):
        raise Unauthenticated("key and client_secret are required")
