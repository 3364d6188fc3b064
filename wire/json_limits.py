"""Bounded JSON parsing for input from outside (HTTP bodies, the spec's `request` string from HTTP and gRPC).

The JSON parsers recurse once per nesting level and a library of ours (py_ecc, imported by web3) raises the
interpreter's recursion limit to 100000, so a string of 150000 `[` would overflow the C stack and kill the whole
process (HTTP, gRPC and the scheduler). The size and nesting depth are therefore measured without recursion,
before any parser sees the text; the interpreter's recursion limit is never touched.
"""

from __future__ import annotations

import re
from typing import Any

import simplejson

from wire.codec import CodecError, NumberText

# Python refuses to turn longer digit strings into an int (sys.get_int_max_str_digits); such a number is kept as
# text (an infinite float), so that the field it was sent to names the problem.
_MAX_INT_DIGITS = 4000

# A JSON string (to its closing quote, or to the end when unterminated: every position is read once) or a bracket.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")


def check_shape(raw: bytes, field: str, *, max_bytes: int, max_depth: int) -> None:
    """`CodecError(field)` when `raw` is longer than `max_bytes` or nests deeper than `max_depth`."""
    if len(raw) > max_bytes:
        raise CodecError(field, f"larger than {max_bytes} bytes")
    depth = 0
    for token in _TOKENS.finditer(raw):
        first = token.group()[0]
        if first in _OPEN:
            depth += 1
            if depth > max_depth:
                raise CodecError(field, f"nested deeper than {max_depth} levels")
        elif first in _CLOSE:
            depth -= 1


def loads(text: str | bytes, field: str, *, max_bytes: int, max_depth: int) -> Any:
    """The parsed JSON value, after `check_shape`; invalid JSON is `CodecError(field, "not valid JSON")`."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    check_shape(raw, field, max_bytes=max_bytes, max_depth=max_depth)
    try:
        return simplejson.loads(raw, use_decimal=False, parse_float=NumberText, parse_int=_integer)
    except (ValueError, UnicodeDecodeError):
        raise CodecError(field, "not valid JSON") from None


def _integer(text: str) -> int | NumberText:
    return int(text) if len(text) <= _MAX_INT_DIGITS else NumberText(text)
