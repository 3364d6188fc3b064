"""Selling plans' part of the composition root: the selling-plan groups and plans API."""

from __future__ import annotations

from collections.abc import Callable

from server.runtime import Runtime
from server.selling_plans.servicer import SellingPlanServicer

# The gRPC services this package implements (the API's full names); composition registers them.
SERVICES: dict[str, Callable[[Runtime], object]] = {
    "paygate.v1.SellingPlanService": SellingPlanServicer,
}


def register(rt: Runtime) -> None:
    rt.add_servicers(SERVICES)
