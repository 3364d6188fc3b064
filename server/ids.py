"""Identifiers and secrets: the spec's prefix plus 24 random base62 characters."""

from __future__ import annotations

import hashlib
import secrets
import string

_ALPHABET = string.digits + string.ascii_letters


def random_base62(length: int = 24) -> str:
    """Uniform: random bytes below 248 (4 * 62) taken mod 62, the others dropped; one read of the OS's random source
    for the whole string (`secrets.choice` per character reads it once per character, and a renewal sweep makes tens
    of thousands of ids)."""
    out = ""
    while len(out) < length:
        out += "".join(_ALPHABET[b % 62] for b in secrets.token_bytes(length + 8) if b < 248)
    return out[:length]


def new_id(prefix: str) -> str:
    """`new_id("cus")` → `cus_` + 24 base62 characters (about 143 bits)."""
    return f"{prefix}_{random_base62()}"


def digest(secret: str) -> str:
    """Lookup hash of a high-entropy secret (API keys, tokens). Such secrets need no slow hash."""
    return hashlib.sha256(secret.encode()).hexdigest()
