"""Merchants' part of the composition root: the merchant's own API (keys, settings)."""

from __future__ import annotations

from collections.abc import Callable

from server.merchants.servicer import MerchantServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.MerchantService": MerchantServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
