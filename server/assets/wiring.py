"""Assets' part of the composition root: the asset catalogue's read API."""

from __future__ import annotations

from collections.abc import Callable

from server.assets.servicer import AssetServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.AssetService": AssetServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
