"""Authentication of a call from its metadata, by the RPC's declared policy (`paygate.v1.auth`).

Secret keys arrive as `authorization: Basic base64(<key>:)` (the facade forwards the HTTP header as is) or
`authorization: Bearer <key>` from gRPC callers. Only values shaped like a key are looked up
(server/merchants/service.py `find_key`). A key is resolved at most once per call and never cached across calls:
several processes share one database, so a key revoked there stops working at once in every one of them.
"""

from __future__ import annotations

import base64
import binascii
from contextvars import ContextVar

from google.protobuf.message import Message
from paygate.v1 import options_pb2

from server.db import Database
from server.errors import Forbidden, Unauthenticated
from server.merchants.service import find_key
from server.request_string import credentials
from server.rpc.context import Caller

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


class Authenticator:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def resolve(self, key: str) -> Caller | None:
        cache = _resolved.get()
        if cache is not None and key in cache:
            return cache[key]
        async with self._db.read() as session:
            row = await find_key(session, key)
        caller = Caller(row.merchant_id, row.livemode, row.kind) if row else None
        if cache is not None:
            cache[key] = caller
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
            if caller is None or caller.key_kind != "secret":
                raise Unauthenticated("key: invalid API key")
            return
        await self.public_key_caller(key)
