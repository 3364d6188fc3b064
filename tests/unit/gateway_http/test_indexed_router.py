"""The facade's route index picks exactly the route Starlette's full scan picks, for every route of the real table
and for paths near them (other methods, other ids, trailing slashes, unknown paths)."""

from __future__ import annotations

import re

import pytest
from starlette.routing import BaseRoute, Match, Route

from gateway_http.app import create_app
from gateway_http.router import IndexedRouter, _key

SAMPLES = {"identifier": "cus_7Hq2", "paygate_id": "pl_7Hq2", "": "x"}
METHODS = ("GET", "POST", "DELETE", "PUT")
ODD_PATHS = ("/", "/v1", "/v1/", "/v1/nothing", "/v1/customers/", "/v1/customers/not-an-id", "/healthz/x",
             "/checkout", "/checkout/", "/checkout/static/checkout.js", "/v1/customers/cus_1/extra", "/ü/ü")


def _paths(routes: list[BaseRoute]) -> list[str]:
    out = list(ODD_PATHS)
    for route in routes:
        if not isinstance(route, Route):
            continue
        path = re.sub(r"\{[^}:]+(?::([^}]+))?\}", lambda m: SAMPLES.get(m.group(1) or "", "x"), route.path)
        out += [path, path + "/", path + "/more"]
    return out


def _first_full(routes: list[BaseRoute], scope: dict[str, object]) -> BaseRoute | None:
    return next((r for r in routes if r.matches(scope)[0] is Match.FULL), None)


@pytest.fixture(scope="module")
def router() -> IndexedRouter:
    app = create_app("127.0.0.1:1")
    assert isinstance(app.router, IndexedRouter)
    return app.router


def test_the_index_picks_the_route_the_full_scan_picks(router: IndexedRouter) -> None:
    checked = 0
    for path in _paths(router.routes):
        for method in METHODS:
            scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
            candidates = router._index.get(_key(path))
            if candidates is None:
                continue  # not indexed: Starlette's own scan answers
            assert _first_full(list(candidates), scope) is _first_full(router.routes, scope), (method, path)
            checked += 1
    assert checked > 300  # the index covers the API's paths, not just a few


def test_every_api_route_is_reached_through_the_index(router: IndexedRouter) -> None:
    api = [r for r in router.routes if isinstance(r, Route) and r.path.startswith("/v1/")]
    for route in api:
        path = re.sub(r"\{[^}:]+(?::([^}]+))?\}", lambda m: SAMPLES.get(m.group(1) or "", "x"), route.path)
        assert route in router._index[_key(path)], route.path
