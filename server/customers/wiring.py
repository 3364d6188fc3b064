"""Customers' part of the composition root: the customers API."""

from __future__ import annotations

from collections.abc import Callable

from server.customers.servicer import CustomerServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.CustomerService": CustomerServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
