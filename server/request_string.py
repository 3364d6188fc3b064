"""The spec's `request` body field: a JSON object string carrying the call's real fields.

Clients of this API family also send the same fields directly in the body (DESIGN.md §2), so both are accepted;
where both name a field, the `request` string wins, since it is the spec's form. The string's fields are decoded by
the same codec as a body, so a wrong type is refused naming `request.<field>`.

The string is attacker input on unauthenticated calls: its size and nesting are bounded before it is parsed
(wire/json_limits.py), and its credentials can be read (`credentials`) without decoding anything else.
"""

from __future__ import annotations

from typing import Any, TypeVar

from google.protobuf.message import Message

from server.errors import InvalidArgument, invalid
from wire import json_limits
from wire.codec import CodecError, decode

M = TypeVar("M", bound=Message)

MAX_BYTES = 64 * 1024  # the fields of one checkout or identity call: a few hundred bytes in practice
MAX_DEPTH = 16  # the deepest field is payment_method_options.crypto.asset_id (3 levels)


def inner_object(request: Message) -> dict[str, Any]:
    """The `request` string's JSON object ({} when there is none), parsed within the bounds above."""
    text = getattr(request, "request", "")  # not every checkout call has the field
    if not text:
        return {}
    try:
        inner = json_limits.loads(text, "request", max_bytes=MAX_BYTES, max_depth=MAX_DEPTH)
    except CodecError as e:
        raise invalid("request", str(e).removeprefix("request: ")) from None
    if not isinstance(inner, dict):
        raise invalid("request", "must be a JSON object string")
    return inner


def credentials(request: Message) -> tuple[str, str]:
    """(key, client_secret) as the call gives them, the `request` string's first; "" for absent or non-strings.

    Only these two fields are read, so that credentials are checked before anything else is decoded. A string too
    large, too deep or not JSON yields none (it is refused later, once a credential from the body has passed)."""
    try:
        inner = inner_object(request)
    except InvalidArgument:
        inner = {}

    def pick(name: str) -> str:
        value = inner.get(name)
        if value is None:
            value = getattr(request, name, "")
        return value if isinstance(value, str) else ""

    return pick("key"), pick("client_secret")


def merged(request: M) -> M:
    """`request` with the fields of its `request` JSON object string merged over the body's."""
    inner = inner_object(request)
    if not inner:
        return request
    parsed = type(request)()
    try:
        decode({k: v for k, v in inner.items() if k not in ("id", "request")}, parsed, "request.")
    except CodecError as e:
        raise InvalidArgument(str(e), field=e.field) from None
    out = type(request)()
    out.CopyFrom(request)
    out.MergeFrom(parsed)
    return out
