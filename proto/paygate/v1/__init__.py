"""Generated protobuf and gRPC modules of paygate's API (`proto/generate.sh`), and a way to enumerate them."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

from google.protobuf.descriptor import ServiceDescriptor


@cache
def modules() -> tuple[ModuleType, ...]:
    """Every `*_pb2` module of the package, imported."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.endswith("_pb2"))
    return tuple(importlib.import_module(f"{__name__}.{n}") for n in names)


@cache
def services() -> tuple[ServiceDescriptor, ...]:
    """Every service of the API, in file order."""
    return tuple(s for m in modules() for s in m.DESCRIPTOR.services_by_name.values())


def grpc_module(service: ServiceDescriptor) -> ModuleType:
    """The `*_pb2_grpc` module that holds the servicer base class and stub of `service`."""
    return importlib.import_module(f"{__name__}.{service.file.name.rsplit('/', 1)[-1][:-6]}_pb2_grpc")
