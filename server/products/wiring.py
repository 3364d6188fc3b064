"""Products' part of the composition root: the products API."""

from __future__ import annotations

from collections.abc import Callable

from server.products.servicer import ProductServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.ProductService": ProductServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
