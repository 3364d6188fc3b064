"""The spec's `request` body field: a JSON object string carrying the call's real fields.

Clients of this API family also send the same fields directly in the body (DESIGN.md §2), so both are accepted;
where both name a field, the `request` string wins, since it is the spec's form. The string's fields are decoded by
the same codec as a body, so a wrong type is refused naming `request.<field>`.
"""

from __future__ import annotations

import json
from typing import TypeVar

from google.protobuf.message import Message

from gateway_http.codec import CodecError, decode
from server.errors import InvalidArgument, invalid

M = TypeVar("M", bound=Message)


def merged(request: M) -> M:
    """`request` with the fields of its `request` JSON object string merged over the body's."""
    text = request.request  # type: ignore[attr-defined]
    if not text:
        return request
    try:
        inner = json.loads(text)
    except ValueError:
        raise invalid("request", "must be a JSON object string") from None
    if not isinstance(inner, dict):
        raise invalid("request", "must be a JSON object string")
    parsed = type(request)()
    try:
        decode({k: v for k, v in inner.items() if k not in ("id", "request")}, parsed, "request.")
    except CodecError as e:
        raise InvalidArgument(str(e), field=e.field) from None
    out = type(request)()
    out.CopyFrom(request)
    out.MergeFrom(parsed)
    return out
