"""What the pipeline needs to know about each RPC, read once from the descriptors."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from google.api import annotations_pb2, field_behavior_pb2
from google.protobuf import descriptor as d
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from paygate.v1 import options_pb2

from server import validate
from server.errors import MissingParameter


@dataclass(frozen=True)
class MethodInfo:
    path: str  # "/paygate.v1.CustomerService/CreateCustomer"
    descriptor: d.MethodDescriptor
    auth: int  # options_pb2.AuthPolicy
    mutates: bool  # bound to a non-GET HTTP verb: idempotency keys apply
    required: tuple[d.FieldDescriptor, ...]
    request_class: type[Message]
    response_class: type[Message]


def http_verbs(method: d.MethodDescriptor) -> set[str]:
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    verbs = set()
    for r in (rule, *rule.additional_bindings):
        kind = r.WhichOneof("pattern")
        if kind:
            verbs.add(kind)
    return verbs


def _required(message: d.Descriptor) -> tuple[d.FieldDescriptor, ...]:
    out = []
    for field in message.fields:
        behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
        if field_behavior_pb2.REQUIRED in behaviors:
            out.append(field)
    return tuple(out)


def method_info(method: d.MethodDescriptor) -> MethodInfo:
    opts = method.GetOptions()
    return MethodInfo(
        path=f"/{method.containing_service.full_name}/{method.name}",
        descriptor=method,
        auth=opts.Extensions[options_pb2.auth],
        mutates=bool(http_verbs(method) - {"get"}),
        required=_required(method.input_type),
        request_class=GetMessageClass(method.input_type),
        response_class=GetMessageClass(method.output_type),
    )


@cache  # memo of a pure function of the (immutable) generated descriptors
def registry(services: tuple[d.ServiceDescriptor, ...]) -> dict[str, MethodInfo]:
    return {info.path: info for s in services for m in s.methods for info in [method_info(m)]}


def check_required(info: MethodInfo, request: Message) -> None:
    """`parameter_missing` for the first REQUIRED field left empty (declared in proto, checked once here), then
    `parameter_invalid` for the first field over its size limit (one table for every RPC: server/validate.py)."""
    for field in info.required:
        if field.is_repeated:
            present = len(getattr(request, field.name)) > 0
        elif field.has_presence:
            present = request.HasField(field.name)
        else:
            present = getattr(request, field.name) != field.default_value
        if not present:
            raise MissingParameter(field.name)
    validate.sizes(request)
