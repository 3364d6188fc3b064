"""Invoices' part of the composition root: the invoices API."""

from __future__ import annotations

from collections.abc import Callable

from server.invoices.servicer import InvoiceServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.InvoiceService": InvoiceServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
