"""Which ids an operation takes, found from the descriptors with the facade's own walk (tests/operations.py).

A slot is a path parameter, or a top-level request field, that names an object: named `id`, ending in `_id` or
`_ids`, or named after a kind (`customer`). Each slot resolves to a kind of the factory table (parties.FACTORIES);
a slot that resolves to nothing, or to a kind without a factory, is reported by the coverage test, so that a new
RPC taking an id cannot escape the sweep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway_http.routes import Binding
from tests.operations import all_bindings, implemented, operation_id

# Fields that end in `_id` but name no object of a merchant, with the reason.
NOT_OBJECT_IDS = {
    "merchant_order_id": "the merchant's own order reference",
    "order_id": "the merchant's own order reference",
    "external_id": "the merchant's own reference",
    "permanent_deposit_asset_id": "an asset of the public catalogue",
}
# Fields whose kind is not their name minus `_id`.
FIELD_KINDS = {
    "endpoint_id": "webhook_endpoint",
    "default_variant_id": "variant",
    "primary_variant_ids": "variant",
    "customer": "customer",
}
# Operations that are public by design for the id they take, with the reason (the sweep still checks them for
# 5xx, but a foreign id is not a secret there).
PUBLIC_BY_DESIGN = {
    "ListMerchantAssets": "the hosted checkout's asset picker of the merchant named in the path, callable anonymously",
}


@dataclass(frozen=True)
class Slot:
    name: str  # field or path parameter
    where: str  # "path", "body" or "query"
    kind: str | None  # None: unresolved
    repeated: bool = False


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def _kind_of_field(name: str) -> str | None:
    if name in FIELD_KINDS:
        return FIELD_KINDS[name]
    if name.endswith("_ids"):
        return name.removesuffix("_ids")
    if name.endswith("_id"):
        return name.removesuffix("_id")
    return None


def _names_an_object(name: str) -> bool:
    return (name == "id" or name.endswith(("_id", "_ids")) or name in FIELD_KINDS) and name not in NOT_OBJECT_IDS


def slots(b: Binding) -> list[Slot]:
    resource = _snake(b.method.containing_service.name.removesuffix("Service"))
    out = []
    for p in b.path_params:
        kind = resource if p == "id" else _kind_of_field(p)
        out.append(Slot(p, "path", kind))
    fields = b.method.input_type.fields_by_name
    for name, f in fields.items():
        if name in b.path_params or not _names_an_object(name) or f.type != f.TYPE_STRING:
            continue
        out.append(Slot(name, "body" if b.body else "query", _kind_of_field(name) if name != "id" else resource,
                        repeated=f.is_repeated))
    return out


def swept() -> list[Binding]:
    """The implemented operations that take at least one id (what the sweep calls)."""
    return [b for b in all_bindings() if implemented(b) and slots(b)]


def sweep_id(b: Binding) -> str:
    return f"{operation_id(b)}:{b.verb} {b.template}"
