"""The `Paygate-Signature` header: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.

The scheme of the public v1 webhook signatures, so existing verifiers work: the HMAC key is the whole `whsec_…`
string, the signed text is the timestamp, a dot and the exact body bytes. During a secret rotation the header
carries one `v1=` per valid secret; a receiver accepts the body when any of them matches its secret.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable

HEADER = "Paygate-Signature"
SCHEME = "v1"
DEFAULT_TOLERANCE = 300


def _mac(secret: str, timestamp: int, payload: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()


def sign(payload: bytes, secrets: Iterable[str], timestamp: int) -> str:
    """The header value for `payload`, with one signature per secret (the current one first)."""
    return ",".join([f"t={timestamp}", *(f"{SCHEME}={_mac(s, timestamp, payload)}" for s in secrets)])


def verify_signature(payload: bytes | str, header: str, secret: str, tolerance: int = DEFAULT_TOLERANCE, *,
                     now: int | None = None) -> bool:
    """True when `header` signs `payload` with `secret` and its timestamp is within `tolerance` seconds of now.

    `payload` must be the raw request body, before any JSON parsing. A tolerance of 0 skips the time check.
    """
    body = payload.encode() if isinstance(payload, str) else payload
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            try:
                timestamp = int(value)
            except ValueError:
                return False
        elif key == SCHEME:
            signatures.append(value)
    if timestamp is None or not signatures:
        return False
    # The receiver's wall clock: this helper runs in merchants' code, where paygate's runtime clock does not exist.
    current = int(time.time()) if now is None else now
    if tolerance > 0 and abs(current - timestamp) > tolerance:
        return False  # a replay of an old, correctly signed body
    expected = _mac(secret, timestamp, body)
    return any(hmac.compare_digest(expected, s) for s in signatures)
