"""The operations of the API as the facade sees them (every google.api.http rule of every service), and which of
them the server implements: an RPC whose servicer does not override the generated base method answers
`501 not_implemented` by design, so the fuzzer and the access sweep leave it out (and say so)."""

from __future__ import annotations

import paygate.v1 as api

from gateway_http.routes import Binding, bindings
from server.boot.composition import implemented_services

SERVICERS = implemented_services()


def all_bindings() -> list[Binding]:
    return bindings(api.services())


def implemented(b: Binding) -> bool:
    service = b.method.containing_service
    factory = SERVICERS.get(service.full_name)
    if factory is None:
        return False
    base = getattr(api.grpc_module(service), f"{service.name}Servicer")
    return getattr(factory, b.method.name) is not getattr(base, b.method.name)


def operation_id(b: Binding) -> str:
    """The operationId gateway_http/openapi.py gives the binding."""
    return b.method.name if b.index == 0 else f"{b.method.name}{b.index + 1}"


def unimplemented_operation_ids() -> list[str]:
    return sorted(operation_id(b) for b in all_bindings() if not implemented(b))
