"""Field checks shared by the resources. Each raises `parameter_invalid` naming the field."""

from __future__ import annotations

import re
from decimal import Decimal
from urllib.parse import urlsplit

from server import money
from server.errors import invalid

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PHONE = re.compile(r"^\+?[0-9][0-9 ().-]{4,24}$")


def text(field: str, value: str, *, max_length: int = 255) -> str:
    if len(value) > max_length:
        raise invalid(field, f"at most {max_length} characters")
    return value


def email(field: str, value: str) -> str:
    value = value.strip()
    if value and (len(value) > 255 or not _EMAIL.match(value)):
        raise invalid(field, "not a valid email address")
    return value


def phone(field: str, value: str) -> str:
    value = value.strip()
    if value and not _PHONE.match(value):
        raise invalid(field, "not a valid phone number")
    return value


def url(field: str, value: str) -> str:
    if value:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc or len(value) > 2000:
            raise invalid(field, "must be an http or https URL")
    return value


def amount(field: str, value: str, *, allow_zero: bool = True, decimals: int = money.MAX_DECIMALS) -> Decimal:
    """A non-negative decimal string such as "10.50" (DESIGN §14: ASCII digits only, ≤ 18 integer digits)."""
    return money.parse(field, value, decimals=decimals, allow_zero=allow_zero)


def money_text(value: Decimal) -> str:
    """Canonical decimal string: no exponent, no trailing zeros beyond what was given."""
    return money.text(value)
