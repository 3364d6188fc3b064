"""Which buckets a call spends, and the refusal when one is empty.

* A call with a secret key spends its key's bucket (merchant and mode: one secret key each).
* A call without one (the hosted checkout's public key + client secret, and anonymous catalogue reads) spends the
  client IP's bucket, and the client secret's bucket when it names one.
"""

from __future__ import annotations

import hashlib
import ipaddress
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from server import metrics
from server.config import Settings
from server.context import Caller
from server.db import Database
from server.errors import DomainError, RateLimited
from server.ratelimit.buckets import Buckets, Limit, MemoryBuckets, PostgresBuckets
from server.ratelimit.client_ip import bucket_of, client_ip

if TYPE_CHECKING:
    from server.rpc.methods import MethodInfo  # the pipeline's, which calls check(); only its type here


def _limit(rate: float, burst: int) -> Limit | None:
    return Limit(rate, burst) if rate > 0 else None


class Limiter:
    def __init__(self, buckets: Buckets, *, key: Limit | None, checkout: Limit | None, ip: Limit | None,
                 trusted_proxies: tuple[str, ...] = ()) -> None:
        self._buckets = buckets
        self._key, self._checkout, self._ip = key, checkout, ip
        self._trusted = tuple(ipaddress.ip_network(p, strict=False) for p in trusted_proxies)

    @classmethod
    def from_settings(cls, settings: Settings, db: Database) -> Limiter:
        key = _limit(settings.rate_limit_per_second, settings.rate_limit_burst)
        checkout = _limit(settings.rate_limit_checkout_per_second, settings.rate_limit_checkout_burst)
        ip = _limit(settings.rate_limit_ip_per_second, settings.rate_limit_ip_burst)
        # A bucket idle for burst/rate seconds is full again, as good as absent: its row may go.
        idle = max([lim.burst / lim.rate for lim in (key, checkout, ip) if lim] or [0.0]) + 60.0
        shared = db.is_postgres and any((key, checkout, ip))
        buckets: Buckets = PostgresBuckets(db, idle) if shared else MemoryBuckets()
        return cls(buckets, key=key, checkout=checkout, ip=ip, trusted_proxies=settings.trusted_proxies)

    def client_of(self, metadata: dict[str, str], peer: str) -> str:
        """The client's address of a call (`client_ip`), by this process's trusted proxies."""
        return client_ip(metadata, peer, self._trusted)

    async def close(self) -> None:
        await self._buckets.close()

    async def check(self, info: MethodInfo, caller: Caller | None, request: Message, metadata: dict[str, str],
                    peer: str) -> None:
        """Spends the call's tokens, or raises `RateLimited` with the seconds to wait."""
        wanted: list[tuple[str, Limit]] = []
        if caller is not None:
            if self._key:
                wanted.append((f"key:{caller.merchant_id}:{'live' if caller.livemode else 'test'}", self._key))
        else:
            if self._ip:
                wanted.append((f"ip:{bucket_of(self.client_of(metadata, peer))}", self._ip))
            secret = _client_secret(request)
            if self._checkout and secret:
                # A digest: the table never holds a credential.
                wanted.append((f"cs:{hashlib.sha256(secret.encode()).hexdigest()[:40]}", self._checkout))
        if not wanted:
            return
        wait = await self._buckets.take(wanted)
        if wait:
            metrics.rate_limited(_kind(wanted))
            raise RateLimited(wait)


def _kind(wanted: list[tuple[str, Limit]]) -> str:
    """The refusal's label: key, or for a call without a key the client secret's bucket when it named one (its
    limit is the tighter), else the client IP's."""
    prefixes = {name.split(":", 1)[0] for name, _ in wanted}
    return "key" if "key" in prefixes else "checkout" if "cs" in prefixes else "ip"


def _client_secret(request: Message) -> str:
    """The client secret a checkout call names, in its body or in its `request` JSON string."""
    fields = request.DESCRIPTOR.fields_by_name
    if "client_secret" not in fields:
        return ""
    if "request" in fields and request.request:  # type: ignore[attr-defined]
        from server.request_string import merged  # the servicer's own reading, so both agree on the secret

        try:
            return str(merged(request).client_secret)  # type: ignore[attr-defined]
        except DomainError:
            return ""  # the servicer refuses the malformed string itself
    return str(request.client_secret)  # type: ignore[attr-defined]
