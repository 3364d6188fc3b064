"""Starlette's router with an index in front: a request is first tried against only the routes that can match its
first two path segments, so `POST /v1/customers` is matched against the handful of `/v1/customers…` routes instead
of every route before them (Starlette tries each route's regex in turn: about a fifth of a create's CPU in the
bench's profile, issue 13).

Exactly Starlette's answer, always: a route whose template's first two segments are literal can only match a path
that starts with those two segments, so the routes of a key keep every route that could match it, in their original
order, and the first full match among them is the first full match among all routes. Anything the index does not
settle (no full match: a 404, a 405, a trailing-slash redirect; or a path whose first two segments name no literal
pair, such as `/checkout/<link id>`) goes through Starlette's own scan unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Match, Mount, Route, Router
from starlette.types import Receive, Scope, Send

Key = tuple[str, str | None]  # the first two path segments (None: the path has one segment)
WILD = object()  # a template segment holding a parameter: it may be anything


def _template_segments(route: BaseRoute) -> list[object] | None:
    """The first two segments of the route's template, each literal or WILD; None when it is neither a Route nor
    a Mount (anything else is a candidate for every key)."""
    if not isinstance(route, Route | Mount):
        return None
    parts = route.path.strip("/").split("/") if route.path.strip("/") else []
    return [WILD if "{" in part else part for part in parts[:2]]


def _may_match(route: BaseRoute, key: Key) -> bool:
    """Whether the route could match a path with these first segments. It may say yes too often (a template shorter
    or longer than the path), never too seldom: a literal segment must appear as itself."""
    segments = _template_segments(route)
    if segments is None:
        return True
    wanted = [key[0]] if key[1] is None else [key[0], key[1]]
    return all(t is WILD or t == w for t, w in zip(segments, wanted, strict=False))


def _key(path: str) -> Key:
    parts = path.split("/", 3)  # "", first, second, rest
    if len(parts) < 2:
        return ("", None)
    return (parts[1], parts[2] if len(parts) > 2 else None)


class IndexedRouter(Router):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        keys: set[Key] = set()
        for route in self.routes:
            segments = _template_segments(route)
            if segments and isinstance(segments[0], str):
                if len(segments) == 1:
                    keys.add((segments[0], None))
                elif isinstance(segments[1], str):
                    keys.add((segments[0], segments[1]))
        self._index: dict[Key, Sequence[BaseRoute]] = {
            key: [r for r in self.routes if _may_match(r, key)] for key in keys}

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for route in self._index.get(_key(get_route_path(scope)), ()):
                match, child_scope = route.matches(scope)
                if match is Match.FULL:
                    scope.setdefault("router", self)
                    scope["route"] = route
                    scope.update(child_scope)
                    await route.handle(scope, receive, send)
                    return
        await super().app(scope, receive, send)
