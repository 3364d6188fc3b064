"""Secrets encrypted at rest (DESIGN §14): webhook signing secrets, card provider secret keys, and the answers kept
for Idempotency-Keys (server/idempotency/store.py: an answer may hold a signing secret or a client secret).

An HMAC key or a provider's API key must be readable to use, so it cannot be hashed like an API key; it is stored
sealed with `cryptography`'s Fernet instead, under `encryption_key` from configuration: a database dump alone
forges no delivery and calls no provider. Several comma-separated keys rotate the key: the first seals, every one
opens. Without a configured key test mode uses a development key generated into var/encryption.key; live mode
refuses (like `secret_key`).

Stored form: `fernet:<token>`. A value without the prefix is a row from before encryption (the 0008 migration
seals those) and is read as it is.
"""

from __future__ import annotations

from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from server import keyfiles
from server.errors import Unavailable

PREFIX = "fernet:"
DEV_FILE = "encryption.key"


def parse_keys(configured: str) -> list[str]:
    """The configured keys, newest first; ValueError when one is not a Fernet key."""
    keys = [k.strip() for k in configured.split(",") if k.strip()]
    for key in keys:
        Fernet(key)  # raises ValueError on a malformed key
    return keys


class SecretBox:
    def __init__(self, configured: str, var_dir: Path = keyfiles.VAR) -> None:
        self._keys = parse_keys(configured)
        self._var_dir = var_dir
        self._dev: str | None = None

    def _dev_key(self, *, create: bool) -> str | None:
        if self._dev is None and (create or (self._var_dir / DEV_FILE).exists()):
            self._dev = keyfiles.load_or_create(DEV_FILE, lambda: Fernet.generate_key().decode(), self._var_dir)
        return self._dev

    def can_seal(self, *, livemode: bool) -> bool:
        """Whether `seal` would succeed for this mode: live secrets need a configured key."""
        return bool(self._keys) or not livemode

    def seal(self, secret: str, *, livemode: bool) -> str:
        return self.seal_bytes(secret.encode(), livemode=livemode).decode("ascii")

    def open(self, stored: str) -> str:
        if not stored.startswith(PREFIX):
            return stored  # empty, or written before secrets were sealed
        return self.open_bytes(stored.encode("ascii")).decode()

    def seal_bytes(self, secret: bytes, *, livemode: bool) -> bytes:
        """`seal` for binary secrets (a stored response that holds one); the stored form is the same."""
        if self._keys:
            key = self._keys[0]
        elif livemode:
            raise Unavailable("live secrets need a configured encryption_key (PAYGATE_ENCRYPTION_KEY)")
        else:
            key = self._dev_key(create=True) or ""
        return PREFIX.encode() + Fernet(key).encrypt(secret)

    def open_bytes(self, stored: bytes) -> bytes:
        if not stored.startswith(PREFIX.encode()):
            return stored  # empty, or written before it was sealed
        dev = self._dev_key(create=False)
        keys = [Fernet(k) for k in [*self._keys, *([dev] if dev else [])]]
        if not keys:
            raise Unavailable("secrets are sealed but no encryption_key is configured")
        try:
            return MultiFernet(keys).decrypt(stored[len(PREFIX):])
        except InvalidToken:
            raise Unavailable("a secret is sealed under a key that is not configured") from None
