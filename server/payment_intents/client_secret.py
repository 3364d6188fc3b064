"""Client secrets, `<pi_id>_secret_<24 base62>`, for the hosted checkout.

Derived, not stored: HMAC-SHA256 of the intent id under the server's `secret_key`. Nothing secret enters the
database (a leaked dump reveals no client secret), the merchant can read the secret again on every retrieve
(the usual flow: create on the server, hand the secret to the page later), and verification is a constant-time
comparison. Rotating `secret_key` invalidates every open checkout session, which is the point of rotating it.
Without a configured key, test mode uses a development key generated into var/secret.key; live mode refuses.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
from pathlib import Path

from server import keyfiles
from server.errors import Unavailable

_ALPHABET = string.digits + string.ascii_letters
DEV_FILE = "secret.key"


def _base62(data: bytes, length: int = 24) -> str:
    number = int.from_bytes(data, "big")
    out = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        out.append(_ALPHABET[digit])
    return "".join(out)


class ClientSecrets:
    def __init__(self, configured: str, var_dir: Path = keyfiles.VAR) -> None:
        self._configured = configured.encode() if configured else b""
        self._var_dir = var_dir
        self._dev: bytes | None = None

    def _key(self, livemode: bool) -> bytes:
        if self._configured:
            return self._configured
        if livemode:
            raise Unavailable("live payments need a configured secret_key (PAYGATE_SECRET_KEY)")
        if self._dev is None:
            self._dev = keyfiles.load_or_create(DEV_FILE, lambda: secrets.token_urlsafe(48),
                                                self._var_dir).encode()
        return self._dev

    def check_available(self, livemode: bool) -> None:
        self._key(livemode)

    def of(self, intent_id: str, livemode: bool) -> str:
        mac = hmac.new(self._key(livemode), intent_id.encode(), hashlib.sha256).digest()
        return f"{intent_id}_secret_{_base62(mac)}"

    def matches(self, intent_id: str, livemode: bool, presented: str) -> bool:
        return hmac.compare_digest(self.of(intent_id, livemode).encode(), presented.encode())
