"""Which ids an operation takes, found from the descriptors with the facade's own walk (tests/operations.py).

A slot is a path parameter, or a request field at any depth, that names an object: named `id` (nested: the object
its parent field names, `variants[].id` → variant), ending in `_id` or `_ids`, or named after a kind (`customer`).
Nested slots are dotted (`primary_variant.variant_id`, `addons.variant_id`: a list at `addons`). An operation whose
body has a `request` string (a JSON object, DESIGN §2) takes its body ids inside that string too (`where` =
"request"). Each slot resolves to a kind of the factory table (parties.FACTORIES); a slot that resolves to nothing,
or to a kind without a factory, is reported by the coverage test, so that a new RPC taking an id cannot escape the
sweep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from gateway_http.routes import Binding
from tests.operations import all_bindings, implemented, operation_id

# Fields that end in `_id` but name no object of a merchant, with the reason.
NOT_OBJECT_IDS = {
    "merchant_order_id": "the merchant's own order reference",
    "order_id": "the merchant's own order reference",
    "external_id": "the merchant's own reference",
    "item_external_id": "the merchant's own reference of a payroll item",
    "permanent_deposit_asset_id": "an asset of the public catalogue",
    "asset_id": "an asset of the public catalogue",
    "receive_asset_id": "an asset of the public catalogue",
}
# Nested fields that name no object the request refers to, with the reason.
NOT_OBJECT_PATHS = {
    "addon_variants.variant.id": "output only: the variant as the link shows it",
}
# Nested fields whose kind is not their name's: a slot whose owner's value must be of a narrower kind.
PATH_KINDS = {
    "addons.variant_id": "addon_variant",
    "addon_variants.variant_id": "addon_variant",
}
# Kinds no object exists for yet, with the reason. Their slots are swept with a well-formed unknown id (never a 5xx,
# never the object) until a factory exists; the coverage test then demands nothing more.
PENDING_KINDS: dict[str, str] = {}
# Fields an operation declares but never reads, by operation, with the reason: they name nothing there.
UNREAD = {
    "GetCheckoutPaymentIntent": {
        "payment_method_options.fiat.payment_method_id": "not used on read (the proto says so): the page's read "
                                                         "opens no attempt, so no saved card is looked up"},
}
MAX_DEPTH = 3
# Fields whose kind is not their name minus `_id`.
FIELD_KINDS = {
    "endpoint_id": "webhook_endpoint",
    "default_variant_id": "variant",
    "primary_variant_ids": "variant",
    "customer": "customer",
    "receive_account_id": "address",  # a payout's destination: a payout address (ma_…)
    "resource_id": "payout",  # the approval API's subject (DESIGN §15): a payout
    "replaces_payment_intent_id": "payment_intent",  # the shopper's earlier checkout that an edited order replaces
    "plan_id": "selling_plan",  # the SDK's name for calculate_price's selling_plan_id
    "instance_id": "approval",  # the SDK's approval instance (`apr_…`, DESIGN §17)
}
# Operations whose `id` names another kind than their service's resource.
RESOURCES = dict.fromkeys(["GetSellingPlanGroup", "UpdateSellingPlanGroup", "DeleteSellingPlanGroup"],
                          "selling_plan_group")  # SellingPlanService serves the groups and their plans
# Slots that take an id of a second kind too, by operation, with the reason: each kind is swept in that place.
SECOND_KINDS = {  # the approval API decides a refund to another address as it decides a payout (DESIGN §15)
    "GetApprovalDetail": {"resource_id": "refund"},
    "ApprovePayout": {"id": "refund"},
    "RejectPayout": {"id": "refund"},
}
# Operations that are public by design for the id they take, with the reason (the sweep still checks them for
# 5xx, but a foreign id is not a secret there).
PUBLIC_BY_DESIGN = {
    "ListMerchantAssets": "the hosted checkout's asset picker of the merchant named in the path, callable anonymously",
    "GetCheckoutLink": "a payment link is a public page: whoever has its address may read what it sells",
    "SendVerificationCode": "a payment link is a public page: whoever has its address may sign in to pay it",
    "StartCheckout": "a payment link is a public page: whoever has its address may start paying it",
}


@dataclass(frozen=True)
class Slot:
    name: str  # path parameter, or field; dotted when nested
    where: str  # "path", "body", "query" or "request" (inside the body's `request` JSON string)
    kind: str | None  # None: unresolved
    repeated: bool = False  # the field itself is a list of ids
    lists: tuple[str, ...] = ()  # the dotted prefixes that are lists of messages (`addons`)

    @property
    def nested(self) -> bool:
        return "." in self.name

    @property
    def error_field(self) -> str:
        """How a refusal names the field: `addons[0].variant_id` for `addons.variant_id`."""
        parts = self.name.split(".")
        return ".".join(p + ("[0]" if ".".join(parts[: i + 1]) in self.lists else "")
                        for i, p in enumerate(parts))

    def put(self, payload: dict[str, object], value: object) -> None:
        """Sets this slot's value in a body or query, making the messages (and one-element lists) on the way."""
        parts = self.name.split(".")
        node: dict[str, object] = payload
        for i, part in enumerate(parts[:-1]):
            prefix = ".".join(parts[: i + 1])
            if prefix in self.lists:
                items = node.setdefault(part, [{}])
                assert isinstance(items, list)
                node = items[0]
            else:
                child = node.setdefault(part, {})
                assert isinstance(child, dict)
                node = child
        node[parts[-1]] = value


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


def _singular(name: str) -> str:
    return name.removesuffix("s") if name.endswith("s") else name


def _nested(message: Descriptor, prefix: str, parent: str, lists: tuple[str, ...], depth: int,
            ) -> list[tuple[str, str | None, bool, tuple[str, ...]]]:
    """(dotted name, kind, repeated, list prefixes) of the id fields inside `message`, a request's field."""
    out: list[tuple[str, str | None, bool, tuple[str, ...]]] = []
    for name, f in message.fields_by_name.items():
        dotted = f"{prefix}.{name}"
        if dotted in NOT_OBJECT_PATHS:
            continue
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            if depth < MAX_DEPTH and not f.message_type.full_name.startswith("google."):
                more = (*lists, dotted) if f.is_repeated else lists
                out += _nested(f.message_type, dotted, name, more, depth + 1)
        elif f.type == FieldDescriptor.TYPE_STRING and _names_an_object(name):
            kind = PATH_KINDS.get(dotted) or (_singular(parent) if name == "id" else _kind_of_field(name))
            out.append((dotted, kind, f.is_repeated, lists))
    return out


def slots(b: Binding) -> list[Slot]:
    resource = RESOURCES.get(b.method.name) or _snake(b.method.containing_service.name.removesuffix("Service"))
    out = []
    for p in b.path_params:
        kind = resource if p == "id" else _kind_of_field(p)
        out.append(Slot(p, "path", kind))
    fields = b.method.input_type.fields_by_name
    where = "body" if b.body else "query"
    for name, f in fields.items():
        if name in b.path_params:
            continue
        if f.type == f.TYPE_MESSAGE and not f.message_type.full_name.startswith("google."):
            lists = (name,) if f.is_repeated else ()
            out += [Slot(dotted, where, kind, repeated, more)
                    for dotted, kind, repeated, more in _nested(f.message_type, name, name, lists, 1)]
            continue
        if not _names_an_object(name) or f.type != f.TYPE_STRING:
            continue
        kind = _kind_of_field(name) if name != "id" else resource
        out.append(Slot(name, where, kind, repeated=f.is_repeated))
        if b.body and "request" in fields:
            out.append(Slot(name, "request", kind, repeated=f.is_repeated))
    unread = UNREAD.get(b.method.name, {})
    out = [s for s in out if s.name not in unread]
    second = SECOND_KINDS.get(b.method.name, {})
    return out + [Slot(s.name, s.where, second[s.name], s.repeated, s.lists) for s in out if s.name in second]


def swept() -> list[Binding]:
    """The implemented operations that take at least one id (what the sweep calls)."""
    return [b for b in all_bindings() if implemented(b) and slots(b)]


def sweep_id(b: Binding) -> str:
    return f"{operation_id(b)}:{b.verb} {b.template}"
