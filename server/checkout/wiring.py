"""Checkout' part of the composition root: the hosted checkout's API (codes, sign-in)."""

from __future__ import annotations

from collections.abc import Callable

from server.checkout.servicer import CheckoutServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.CheckoutService": CheckoutServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
