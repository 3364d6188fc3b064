"""Payment links' part of the composition root: the payment links API."""

from __future__ import annotations

from collections.abc import Callable

from server.payment_links.servicer import PaymentLinkServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.PaymentLinkService": PaymentLinkServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
