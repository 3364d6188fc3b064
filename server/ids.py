"""Identifiers and secrets: the spec's prefix plus 24 random base62 characters."""

from __future__ import annotations

import hashlib
import secrets
import string

BASE62 = string.digits + string.ascii_letters


def random_base62(length: int = 24) -> str:
    """Uniform: random bytes below 248 (4 * 62) taken mod 62, the others dropped; one read of the OS's random source
    for the whole string (`secrets.choice` per character reads it once per character, and a renewal sweep makes tens
    of thousands of ids)."""
    out = ""
    while len(out) < length:
        out += "".join(BASE62[b % 62] for b in secrets.token_bytes(length + 8) if b < 248)
    return out[:length]


# Every prefix an object id has. The HTTP facade reads a path segment as an id only when it starts with one of
# these and `_` (its route table): `/v1/payment_intents/some_thing` is an unbound path, not an intent id.
PREFIXES = frozenset({
    "apa", "apr", "aps", "ch", "cus", "evt", "evtd", "inv", "key", "le", "lp", "ma", "mav", "mch", "ord", "payout",
    "payroll", "payroll_item", "pd", "pi", "pl", "pm", "prod", "rf", "rtx", "sd", "sp", "spg", "stx", "sub", "sw",
    "swtx", "ttx", "tx", "uspd", "var", "vc", "vcf", "we",
})


def new_id(prefix: str) -> str:
    """`new_id("cus")` → `cus_` + 24 base62 characters (about 143 bits). The product's prefixes are PREFIXES."""
    return f"{prefix}_{random_base62()}"


def digest(secret: str) -> str:
    """Lookup hash of a high-entropy secret (API keys, tokens). Such secrets need no slow hash."""
    return hashlib.sha256(secret.encode()).hexdigest()
