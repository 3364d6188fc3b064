"""protobuf ↔ the spec's JSON, in one place.

Out: snake_case names in field order; int64 as JSON numbers; enums as their `wire_value`; unset optional scalars
and unset messages as `null`; empty repeated fields as `[]`; decimal strings marked `json_number` as exact JSON
numbers (Decimal); strings marked `json_document` inline as the JSON they hold; message fields marked `flatten`
as their fields at the top of the enclosing object (its own fields win a shared name); Struct values with whole
numbers as integers.

In: JSON values checked against the field types, `null` meaning "not given", unknown fields ignored (clients of
this API family send extras); a wrong type raises `CodecError` naming the field path (`variants[1].price`), and
so do text no UTF-8 can encode (a lone surrogate, anywhere) and a free-JSON number no double can hold.
"""

from __future__ import annotations

import base64
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from functools import cache
from typing import Any, cast

import simplejson
from google.protobuf import descriptor as d
from google.protobuf import struct_pb2
from google.protobuf.message import Message
from paygate.v1 import options_pb2

F = d.FieldDescriptor
_INT32 = (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32)
_UINT32 = (F.TYPE_UINT32, F.TYPE_FIXED32)
_INT64 = (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64)
_UINT64 = (F.TYPE_UINT64, F.TYPE_FIXED64)
_RANGES = {**{t: (-(2**31), 2**31 - 1) for t in _INT32}, **{t: (0, 2**32 - 1) for t in _UINT32},
           **{t: (-(2**63), 2**63 - 1) for t in _INT64}, **{t: (0, 2**64 - 1) for t in _UINT64}}
# ASCII only: `str.isdigit()`, `int()` and `Decimal()` also take "²", "٣", "1_0" and surrounding spaces.
_INTEGER = re.compile(r"-?[0-9]{1,30}", re.ASCII)
_NUMBER = re.compile(r"-?[0-9]{1,30}(\.[0-9]{1,30})?", re.ASCII)
_WRAPPERS = {"google.protobuf." + n for n in ("Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
                                               "StringValue", "BoolValue", "DoubleValue", "FloatValue")}


def fields_of(message: Any) -> Mapping[str, d.FieldDescriptor]:
    # The stubs type upb's descriptors apart from the pure-Python ones; they behave the same.
    return cast(Mapping[str, d.FieldDescriptor], message.fields_by_name)


class NumberText(float):
    """A JSON number with a fraction or exponent (or too many digits for an int), as the input parsers read it
    (wire/json_limits.py): a float to the fields that take one, and its literal `text` to a money field marked
    `money_input`, which takes it exactly (DESIGN §17), never through the float."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> NumberText:
        number = super().__new__(cls, text)
        number.text = text
        return number


class CodecError(Exception):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


# ---------------------------------------------------------------- enums


@cache  # memo of a pure function of the (immutable) generated descriptors, like the @cache below
def enum_wire(enum: d.EnumDescriptor) -> tuple[dict[int, str], dict[str, int]]:
    out: dict[int, str] = {}
    back: dict[str, int] = {}
    prefix = _enum_prefix(enum)
    for value in enum.values:
        opts = value.GetOptions()
        wire = opts.Extensions[options_pb2.wire_value] if opts.HasExtension(options_pb2.wire_value) else \
            value.name.removeprefix(prefix).lower()
        out[value.number] = wire
        back.setdefault(wire, value.number)
        back.setdefault(value.name, value.number)
    return out, back


def _enum_prefix(enum: d.EnumDescriptor) -> str:
    name = enum.name
    snake = "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(name)).upper()
    return snake + "_"


# ---------------------------------------------------------------- encoding

Encoder = Callable[[Any], Any]


def _scalar_encoder(field: d.FieldDescriptor) -> Encoder:
    if field.type == F.TYPE_ENUM:
        wire = enum_wire(field.enum_type)[0]
        return lambda v: wire.get(v, "")
    if field.type == F.TYPE_STRING and field.GetOptions().Extensions[options_pb2.json_number]:
        return lambda v: Decimal(v) if v else Decimal(0)
    if field.type == F.TYPE_STRING and field.GetOptions().Extensions[options_pb2.json_document]:
        # Inline JSON (event snapshots): numbers stay Decimal so that their digits reach the wire unchanged.
        return lambda v: simplejson.loads(v, use_decimal=True) if v else None
    if field.type == F.TYPE_BYTES:
        return lambda v: base64.b64encode(v).decode()
    return lambda v: v


def _message_encoder(message: d.Descriptor) -> Encoder:
    if message.full_name == "google.protobuf.Struct":
        return struct_to_python
    if message.full_name == "google.protobuf.Value":
        return lambda v: _tidy(_value(v))
    if message.full_name in _WRAPPERS:
        return lambda v: v.value
    if message.full_name == "google.protobuf.FieldMask":
        return lambda v: ",".join(v.paths)
    return lambda v: encode(v)


@cache
def _plan(message: d.Descriptor) -> tuple[tuple[str, Callable[[Message], Any]], ...]:
    steps: list[tuple[str, Callable[[Message], Any]]] = []
    for field in message.fields:
        if not flattened(field):
            steps.append((field.name, _field_getter(field)))
    return tuple(steps)


def flattened(field: d.FieldDescriptor) -> bool:
    """A message field marked `flatten`: its fields go at the top of the enclosing object."""
    return field.message_type is not None and bool(field.GetOptions().Extensions[options_pb2.flatten])


@cache
def _flat_plan(message: d.Descriptor) -> tuple[str, ...]:
    return tuple(f.name for f in message.fields if flattened(f))


def _field_getter(field: d.FieldDescriptor) -> Callable[[Message], Any]:
    name = field.name
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value_field = field.message_type.fields_by_name["value"]
        value_enc = _message_encoder(value_field.message_type) if value_field.message_type else \
            _scalar_encoder(value_field)
        return lambda m: {k: value_enc(v) for k, v in getattr(m, name).items()}
    if field.is_repeated:
        item = _message_encoder(field.message_type) if field.message_type else _scalar_encoder(field)
        return lambda m: [item(v) for v in getattr(m, name)]
    if field.message_type is not None:
        enc = _message_encoder(field.message_type)
        if field.message_type.full_name == "google.protobuf.Struct":
            return lambda m: enc(getattr(m, name))  # free metadata: `{}` when unset
        return lambda m: enc(getattr(m, name)) if m.HasField(name) else None
    enc = _scalar_encoder(field)
    if field.has_presence:
        return lambda m: enc(getattr(m, name)) if m.HasField(name) else None
    return lambda m: enc(getattr(m, name))


def dumps(payload: Any) -> bytes:
    """The JSON text of an encoded value: compact, UTF-8, Decimals as exact numbers."""
    return simplejson.dumps(payload, use_decimal=True, separators=(",", ":"), ensure_ascii=False).encode()


def encode(message: Message) -> dict[str, Any]:
    out = {name: get(message) for name, get in _plan(message.DESCRIPTOR)}
    for name in _flat_plan(message.DESCRIPTOR):
        # The enclosing message's own fields win a name both have; an unset flattened field adds nothing.
        if message.HasField(name):
            out = {**encode(getattr(message, name)), **out}
    return out


def encode_field(message: Message, field_name: str) -> Any:
    """The value of one field, as a `response_body` selects it."""
    return _field_getter(fields_of(message.DESCRIPTOR)[field_name])(message)


def _value(v: struct_pb2.Value) -> Any:
    kind = v.WhichOneof("kind")
    if kind == "struct_value":
        return {k: _value(v.struct_value.fields[k]) for k in sorted(v.struct_value.fields)}
    if kind == "list_value":
        return [_value(x) for x in v.list_value.values]
    if kind == "null_value" or kind is None:
        return None
    return getattr(v, kind)


def _tidy(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: _tidy(x) for k, x in value.items()}
    if isinstance(value, list):
        return [_tidy(x) for x in value]
    return value


def struct_to_python(s: struct_pb2.Struct) -> dict[str, Any]:
    # Sorted: a map's iteration order is not stable, and a replayed response must be byte-identical.
    return {k: _tidy(_value(s.fields[k])) for k in sorted(s.fields)}


# ---------------------------------------------------------------- decoding


def decode(data: dict[str, Any], message: Message, path: str = "") -> Message:
    """Fill `message` from a JSON object; returns it. `path` prefixes the field names in errors ("request.")."""
    check_text(data, path.removesuffix("."))
    return _decode_object(data, message, path)


def _decode_object(data: dict[str, Any], message: Message, path: str) -> Message:
    fields = fields_of(message.DESCRIPTOR)
    for key, value in data.items():
        field = fields.get(key)
        if field is None or value is None:
            continue
        _set(message, field, value, f"{path}{key}")
    return message


def _set(message: Message, field: d.FieldDescriptor, value: Any, path: str) -> None:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        if not isinstance(value, dict):
            raise CodecError(path, "must be an object")
        target = getattr(message, field.name)
        value_field = field.message_type.fields_by_name["value"]
        for k, v in value.items():
            if value_field.message_type is not None:
                _decode_message(v, target[k], f"{path}.{k}")
            else:
                target[k] = _scalar(value_field, v, f"{path}.{k}")
        return
    if field.is_repeated:
        if not isinstance(value, list):
            raise CodecError(path, "must be an array")
        target = getattr(message, field.name)
        for i, item in enumerate(value):
            if item is None:
                raise CodecError(f"{path}[{i}]", "must not be null")
            if field.message_type is not None:
                _decode_message(item, target.add(), f"{path}[{i}]")
            else:
                target.append(_scalar(field, item, f"{path}[{i}]"))
        return
    if field.message_type is not None:
        target = getattr(message, field.name)
        _decode_message(value, target, path)
        target.SetInParent()  # `{}` still means "given"
        return
    setattr(message, field.name, _scalar(field, value, path))


def _decode_message(value: Any, target: Message, path: str) -> None:
    name = target.DESCRIPTOR.full_name
    if name == "google.protobuf.Struct":
        if not isinstance(value, dict):
            raise CodecError(path, "must be an object")
        _check_free_value(value, path, 0)
        target.update(value)  # type: ignore[attr-defined]
    elif name == "google.protobuf.Value":
        _check_free_value(value, path, 0)
        target.CopyFrom(_to_value(value))
    elif name in _WRAPPERS:
        _set(target, fields_of(target.DESCRIPTOR)["value"], value, path)
    elif name == "google.protobuf.FieldMask":
        paths = value.split(",") if isinstance(value, str) else value
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise CodecError(path, "must be a comma-separated string or an array of field names")
        target.paths.extend(p.strip() for p in paths if p.strip())  # type: ignore[attr-defined]
    else:
        if not isinstance(value, dict):
            raise CodecError(path, "must be an object")
        _decode_object(value, target, f"{path}.")


# ---------------------------------------------------------------- text a message can hold

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(value: Any, path: str = "") -> None:
    """`CodecError` naming the place of the first string or object key, at any depth, with a lone surrogate.

    JSON may escape one (`"\\ud800"`) but no UTF-8 can encode it, so protobuf, the database and the response
    would each fail on it later; refused once here, where JSON enters a message. Unknown fields are checked too:
    such text is broken wherever it is. The JSON parsers already bound the nesting (wire/json_limits.py).
    Every body passes here, so the places are named only for a body that holds one (`_holds_surrogate` first)."""
    if _holds_surrogate(value):
        _name_surrogate(value, path)


def _holds_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return not value.isascii() and _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_surrogate(item) for item in value)
    return False


def _name_surrogate(value: Any, path: str) -> None:
    if isinstance(value, str):
        _refuse_surrogate(value, path, "not valid text")
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_surrogate(key, path or "body", f"the key '{_printable(key)}' is not valid text")
            _name_surrogate(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _name_surrogate(item, f"{path}[{i}]")


def _refuse_surrogate(text: str, path: str, problem: str) -> None:
    found = None if text.isascii() else _SURROGATE.search(text)
    if found is not None:
        raise CodecError(path, f"{problem} (a lone surrogate {_printable(found.group())})")


def _printable(text: str) -> str:
    """`text` with each lone surrogate as its `\\udXXX` escape, so that an error message can carry it."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# ---------------------------------------------------------------- free JSON (Struct, Value)

MAX_FREE_DEPTH = 32
_LARGEST_NUMBER = f"numbers must be finite and at most {sys.float_info.max!r} in size"


def _check_free_value(value: Any, path: str, depth: int) -> None:
    """Free JSON (metadata): bounded nesting (protobuf parsers stop at 100 levels), no NUL in strings, and
    numbers a double holds (a Struct stores doubles; JSON has no infinity to show one that overflowed)."""
    if depth > MAX_FREE_DEPTH:
        raise CodecError(path, f"nested deeper than {MAX_FREE_DEPTH} levels")
    if isinstance(value, dict):
        for k, v in value.items():
            if "\x00" in k:
                raise CodecError(path, "keys must not contain NUL characters")
            _check_free_value(v, f"{path}.{k}", depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_free_value(v, f"{path}[{i}]", depth + 1)
    elif isinstance(value, str) and "\x00" in value:
        raise CodecError(path, "must not contain NUL characters")
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and not _fits_a_double(value):
        raise CodecError(path, _LARGEST_NUMBER)


def _fits_a_double(number: int | float) -> bool:
    try:
        return math.isfinite(float(number))
    except OverflowError:  # an integer beyond the largest double
        return False


def _to_value(value: Any) -> struct_pb2.Value:
    holder = struct_pb2.Struct()
    holder.update({"v": value})
    return holder.fields["v"]


def _scalar(field: d.FieldDescriptor, value: Any, path: str) -> Any:
    t = field.type
    if t == F.TYPE_STRING:
        if not isinstance(value, str):
            return _money_number(field, value, path)
        if "\x00" in value:
            # PostgreSQL cannot store NUL in text; refuse it the same way on every backend.
            raise CodecError(path, "must not contain NUL characters")
        return value
    if t == F.TYPE_BOOL:
        if not isinstance(value, bool):
            raise CodecError(path, "must be true or false")
        return value
    if t in _RANGES:
        if isinstance(value, str):
            value = parse_integer(value)
            if value is None:
                raise CodecError(path, "must be an integer")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise CodecError(path, "must be an integer")
        low, high = _RANGES[t]
        if not low <= value <= high:
            raise CodecError(path, f"must be from {low} to {high}")
        return value
    if t == F.TYPE_ENUM:
        back = enum_wire(field.enum_type)[1]
        if not isinstance(value, str) or value not in back:
            allowed = ", ".join(w for n, w in sorted(enum_wire(field.enum_type)[0].items()) if w)
            raise CodecError(path, f"must be one of {allowed}")
        return back[value]
    if t in (F.TYPE_DOUBLE, F.TYPE_FLOAT):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise CodecError(path, "must be a number")
        return float(value)
    if t == F.TYPE_BYTES:
        try:
            return base64.b64decode(value, validate=True)
        except (ValueError, TypeError):
            raise CodecError(path, "must be base64") from None
    raise CodecError(path, "unsupported field type")


def _money_number(field: d.FieldDescriptor, value: Any, path: str) -> str:
    """The literal text of a JSON number sent to a `money_input` field, when it is a plain decimal (no exponent);
    the amount's own rules (sign, digits, decimals) are the server's, as for a string."""
    if not field.GetOptions().Extensions[options_pb2.money_input] or isinstance(value, bool):
        raise CodecError(path, "must be a string")
    if isinstance(value, NumberText):
        if not _NUMBER.fullmatch(value.text):
            raise CodecError(path, 'must be a decimal amount such as "9.50" (a JSON number without an exponent)')
        return value.text
    if isinstance(value, int):
        return str(value)
    raise CodecError(path, "must be a decimal string")


# ---------------------------------------------------------------- query strings


def decode_query(items: Iterable[tuple[str, str]], message: Message) -> Message:
    """Query parameters (all strings) into fields; `a.b=1` reaches nested fields, repeats fill lists."""
    grouped: dict[str, list[str]] = {}
    for key, value in items:
        grouped.setdefault(key, []).append(value)
    for key, values in grouped.items():
        target = message
        parts = key.split(".")
        field: d.FieldDescriptor | None = None
        for i, part in enumerate(parts):
            field = fields_of(target.DESCRIPTOR).get(part)
            if field is None:
                break
            if i < len(parts) - 1:
                if field.message_type is None or field.is_repeated:
                    field = None
                    break
                target = getattr(target, part)
        if field is None:
            continue
        if field.is_repeated:
            items_ = [v for value in values for v in value.split(",") if v != ""]
            _set(target, field, [_from_text(field, v, key) for v in items_], key)
        elif field.message_type is not None:
            _decode_message(_from_text(field, values[-1], key), getattr(target, field.name), key)
        else:
            setattr(target, field.name, _scalar(field, _from_text(field, values[-1], key), key))
    return message


def parse_integer(text: str) -> int | None:
    """An integer string in ASCII digits with an optional '-', or None."""
    return int(text) if _INTEGER.fullmatch(text) else None


def _from_text(field: d.FieldDescriptor, text: str, path: str) -> Any:
    t = field.type
    if t == F.TYPE_BOOL:
        lowered = text.lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise CodecError(path, "must be true or false")
    if t in _RANGES:
        number = parse_integer(text)
        if number is None:
            raise CodecError(path, "must be an integer")
        return number
    if t in (F.TYPE_DOUBLE, F.TYPE_FLOAT):
        if not _NUMBER.fullmatch(text):
            raise CodecError(path, "must be a number")
        return float(Decimal(text))
    if field.message_type is not None and field.message_type.full_name in _WRAPPERS:
        return _from_text(fields_of(field.message_type)["value"], text, path)
    return text
