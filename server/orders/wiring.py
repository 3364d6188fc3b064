"""Orders' part of the composition root: the orders API, and the outbox subscriber that makes an order when a
payment link purchase's intent succeeds (in the event's transaction)."""

from __future__ import annotations

from collections.abc import Callable

from server.events import outbox
from server.orders import service
from server.orders.servicer import OrderServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.OrderService": OrderServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
    outbox.subscribe(rt.db, service.on_event)
