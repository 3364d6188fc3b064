"""Field checks shared by the resources. Each raises `parameter_invalid` naming the field."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from urllib.parse import urlsplit

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


def amount(field: str, value: str, *, allow_zero: bool = True) -> Decimal:
    """A non-negative decimal string such as "10.50"; no exponent, no float spelling."""
    try:
        parsed = Decimal(value)
    except (InvalidOperation, TypeError):
        raise invalid(field, f"{value!r} is not a decimal amount") from None
    if not parsed.is_finite() or "e" in value.lower() or parsed < 0 or (not allow_zero and parsed == 0):
        raise invalid(field, f"{value!r} must be a {'non-negative' if allow_zero else 'positive'} decimal amount")
    exponent = parsed.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > 18:
        raise invalid(field, "at most 18 decimal places")
    return parsed


def money_text(value: Decimal) -> str:
    """Canonical decimal string: no exponent, no trailing zeros beyond what was given."""
    return format(value, "f")
