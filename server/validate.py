"""Field checks shared by the resources. Each raises `parameter_invalid` naming the field."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from google.protobuf import json_format, struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from server import money
from server.errors import invalid

# No whitespace, control characters, nor the characters that separate or quote addresses in a header (a comma would
# make `To: a,victim@x` two recipients).
_EMAIL_PART = r'[^@\s\x00-\x1f\x7f,;:<>()\[\]\\"]+'
_EMAIL = re.compile(rf"^{_EMAIL_PART}@{_EMAIL_PART}\.{_EMAIL_PART}$")
# A URL's host: a name (letters, digits, '-', '.'; any script) or an IP address. Anything else (a space, ';', '*')
# could not be a host, and would reach the checkout page's Content-Security-Policy through its origin.
URL_HOST = re.compile(r"[\w.-]+|[0-9A-Fa-f:.]+")
_PHONE = re.compile(r"^\+?[0-9][0-9 ().-]{4,24}$")


def text(field: str, value: str, *, max_length: int = 255) -> str:
    if len(value) > max_length:
        raise invalid(field, f"at most {max_length} characters")
    return value


def email(field: str, value: str) -> str:
    value = value.strip()
    if value and (len(value) > 254 or not _EMAIL.match(value)):
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
        try:
            parts.port  # noqa: B018 - raises ValueError on a port that is not a number in range
        except ValueError:
            raise invalid(field, "must be an http or https URL with a valid port") from None
        if not parts.hostname or not URL_HOST.fullmatch(parts.hostname) or "@" in parts.netloc:
            raise invalid(field, "must be an http or https URL whose host is a name or an IP address "
                                 "(no user name, spaces or symbols)")
    return value


def amount(field: str, value: str, *, allow_zero: bool = True, decimals: int = money.MAX_DECIMALS) -> Decimal:
    """A non-negative decimal string such as "10.50" (DESIGN §14: ASCII digits only, ≤ 18 integer digits)."""
    return money.parse(field, value, decimals=decimals, allow_zero=allow_zero)


def money_text(value: Decimal) -> str:
    """Canonical decimal string: no exponent, no trailing zeros beyond what was given."""
    return money.text(value)


# ---------------------------------------------------------------- sizes of every request (DESIGN §14)
#
# One table, applied to every RPC's request in the pipeline's required-field step (server/rpc/methods.py), so a
# field added later is bounded without anyone remembering to. The resources keep their own, tighter rules
# (e.g. a payment intent's description ≤ 1000); these are the ceilings. Limits follow Stripe's where it has them.

MAX_TEXT = 5000  # any string not named below
TEXT_LIMITS = {
    "name": 255, "title": 255, "value": 255, "sku": 255, "merchant_order_id": 255, "order_id": 255,
    "line1": 255, "line2": 255, "city": 255, "state": 255, "postal_code": 64, "country": 64,
    "email": 254, "receipt_email": 254, "customer_email": 254, "idp_subject": 254, "phone": 32,
    "description": 5000, "request": 20_000,
}
MAX_URL = 2000  # fields named `url` or `*_url`
MAX_ITEMS = 100  # any repeated field
MAX_MAP_ENTRIES = 50
MAX_MAP_KEY = 255
METADATA_KEYS, METADATA_KEY_LENGTH, METADATA_VALUE_LENGTH = 50, 40, 500  # Structs named `metadata`, `*_metadata`
MAX_FREE_JSON = 8 * 1024  # any other Struct or Value

_WRAPPED = {"google.protobuf.StringValue"}


def text_limit(name: str) -> int:
    if name == "url" or name.endswith("_url"):
        return MAX_URL
    return TEXT_LIMITS.get(name, MAX_TEXT)


def sizes(message: Message, path: str = "") -> None:
    """`parameter_invalid` naming the first field of `message` (recursively) over its size limit."""
    for field, value in message.ListFields():
        where = f"{path}{field.name}"
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            _map(field, value, where)
        elif field.is_repeated:
            if len(value) > MAX_ITEMS:
                raise invalid(where, f"at most {MAX_ITEMS} items")
            for i, item in enumerate(value):
                _one(field, item, f"{where}[{i}]", field.name)
        else:
            _one(field, value, where, field.name)


def _one(field: FieldDescriptor, value: Any, where: str, name: str) -> None:
    if field.message_type is None:
        if isinstance(value, str) and len(value) > text_limit(name):
            raise invalid(where, f"at most {text_limit(name)} characters")
        return
    kind = field.message_type.full_name
    if kind == "google.protobuf.Struct":
        if name == "metadata" or name.endswith("_metadata"):
            _metadata(value, where)
        elif not _all_finite(value.fields.values()):
            raise invalid(where, "holds a number that is not finite")
        elif len(json.dumps(json_format.MessageToDict(value))) > MAX_FREE_JSON:
            raise invalid(where, f"at most {MAX_FREE_JSON} bytes of JSON")
    elif kind == "google.protobuf.Value":
        if not _all_finite([value]):
            raise invalid(where, "holds a number that is not finite")
        if len(json.dumps(json_format.MessageToDict(value))) > MAX_FREE_JSON:
            raise invalid(where, f"at most {MAX_FREE_JSON} bytes of JSON")
    elif kind in _WRAPPED:
        if len(value.value) > text_limit(name):
            raise invalid(where, f"at most {text_limit(name)} characters")
    elif not kind.startswith("google.protobuf."):
        sizes(value, f"{where}.")


def _map(field: FieldDescriptor, value: Any, where: str) -> None:
    if len(value) > MAX_MAP_ENTRIES:
        raise invalid(where, f"at most {MAX_MAP_ENTRIES} entries")
    assert field.message_type is not None  # a map field is a repeated entry message
    value_field = field.message_type.fields_by_name["value"]
    for key, item in value.items():
        if isinstance(key, str) and len(key) > MAX_MAP_KEY:
            raise invalid(where, f"keys of at most {MAX_MAP_KEY} characters")
        _one(value_field, item, f"{where}.{key}" if len(str(key)) <= 40 else where, "value")


def _metadata(struct: Any, where: str) -> None:
    fields = struct.fields
    if len(fields) > METADATA_KEYS:
        raise invalid(where, f"at most {METADATA_KEYS} keys")
    for key, item in fields.items():
        if len(key) > METADATA_KEY_LENGTH:
            raise invalid(where, f"keys of at most {METADATA_KEY_LENGTH} characters")
        if not _all_finite([item]):
            raise invalid(where, f"the value of {key!r} holds a number that is not finite")
        shown = item.string_value if item.WhichOneof("kind") == "string_value" else \
            json.dumps(json_format.MessageToDict(item))
        if len(shown) > METADATA_VALUE_LENGTH:
            raise invalid(where, f"the value of {key[:40]!r} has more than {METADATA_VALUE_LENGTH} characters")


def _all_finite(values: Iterable[struct_pb2.Value]) -> bool:
    """False when a number at any depth is NaN or infinite: only a gRPC caller can send one (JSON has neither,
    and the codec refuses what overflows), and no JSON can show or store it."""
    pending = list(values)
    while pending:
        value = pending.pop()
        kind = value.WhichOneof("kind")
        if kind == "number_value" and not math.isfinite(value.number_value):
            return False
        if kind == "struct_value":
            pending.extend(value.struct_value.fields.values())
        elif kind == "list_value":
            pending.extend(value.list_value.values)
    return True
