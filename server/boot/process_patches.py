"""Process-wide fixes for costs the profile of a serving process shows (bench/RESULTS.md), installed at start-up.

* pydantic asks `inspect.signature` of a field's `default_factory` every time a SQLModel row is built (whether the
  factory takes the validated data): about 6 % of a create-customer's CPU. The answer depends only on the callable,
  so it is memoized here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    from pydantic._internal import _fields

    original: Callable[[Any], bool] = _fields.takes_validated_data_argument
    memo = functools.lru_cache(maxsize=4096)(original)

    def takes_validated_data_argument(default_factory: Any) -> bool:
        try:
            return memo(default_factory)
        except TypeError:  # an unhashable callable: asked every time, as before
            return original(default_factory)

    _fields.takes_validated_data_argument = takes_validated_data_argument  # type: ignore[assignment]
    _installed = True
