"""google.protobuf.Struct ↔ plain JSON values, and the limits on free metadata."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import struct_pb2

from server.errors import invalid
from wire.codec import struct_to_python

MAX_METADATA_KEYS = 50
MAX_METADATA_BYTES = 8 * 1024


def to_dict(struct: struct_pb2.Struct) -> dict[str, Any]:
    return struct_to_python(struct)


def fill(struct: struct_pb2.Struct, value: dict[str, Any] | None) -> None:
    struct.Clear()
    if value:
        struct.update(value)


def metadata_of(struct: struct_pb2.Struct, field: str = "metadata") -> dict[str, Any]:
    value = to_dict(struct)
    if len(value) > MAX_METADATA_KEYS:
        raise invalid(field, f"at most {MAX_METADATA_KEYS} keys")
    if any(not k or len(k) > 40 for k in value):
        raise invalid(field, "keys must be 1 to 40 characters")
    if len(json.dumps(value)) > MAX_METADATA_BYTES:
        raise invalid(field, f"at most {MAX_METADATA_BYTES} bytes of JSON")
    return value


def struct_of(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    fill(out, value)
    return out
