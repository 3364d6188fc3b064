"""Payrolls' part of the composition root: the payrolls API. Its items are payouts: the treasury's sender, crash
recovery and approval expiry take them with no wiring of their own."""

from __future__ import annotations

from collections.abc import Callable

from server.payrolls.servicer import PayrollServicer
from server.runtime import Runtime

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.PayrollService": PayrollServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
