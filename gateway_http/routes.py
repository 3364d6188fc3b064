"""The route table, built from the descriptors' `google.api.http` rules: one route per path template.

Each binding knows its RPC, verb, body and response_body; nothing here is written per endpoint. Templates are
ordered so that a literal segment wins over a `{param}` at the same place (`/v1/customers/ephemeral_tokens`
before `/v1/customers/{id}`).

A parameter only matches a segment shaped like an identifier: one of the prefixes of server/ids.py, `_`, then
anything; or any other lowercase prefix, `_`, then base62 characters holding a digit or a capital, as made ids and
the placeholders of SDKs do (`po_000…`). Every parameter of every resource takes that one shape, so an id of an
unknown shape reaches its RPC and answers `404 <resource>_not_found` (DESIGN §11, §17), and a new prefix is one
entry in PREFIXES. A word such as `invoices` or `some_thing` in `/v1/payment_intents/some_thing` is a literal path,
and a literal that no RPC binds answers `404 not_found` instead of being read as an intent id (DESIGN §12).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor as d
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from paygate.v1 import options_pb2
from starlette.convertors import StringConvertor, register_url_convertor

from server.ids import PREFIXES

_PARAM = re.compile(r"\{([a-z_][a-z0-9_.]*)(=[^}]*)?\}")


class IdentifierConvertor(StringConvertor):
    """A path segment shaped like an object id: a known prefix, `_`, then anything but `/`; or an unknown lowercase
    prefix, `_`, then base62 with a digit or a capital (no English word is spelled so)."""

    regex = ("(?:(?:" + "|".join(sorted(PREFIXES, key=len, reverse=True)) + ")_[^/]*"
             "|[a-z]+_[0-9A-Za-z]*[0-9A-Z][0-9A-Za-z]*)")


register_url_convertor("identifier", IdentifierConvertor())


@dataclass(frozen=True)
class Binding:
    verb: str  # "GET", "POST", …
    template: str  # "/v1/customers/{id}"
    rpc: str  # "/paygate.v1.CustomerService/GetCustomer"
    method: d.MethodDescriptor
    body: str  # "*", a field name, or ""
    response_body: str
    request_class: type[Message]
    response_class: type[Message]
    envelope: int
    success_message: str
    auth: int
    index: int  # 0 for the primary rule, then the additional bindings in order

    @property
    def path_params(self) -> list[str]:
        return [m.group(1) for m in _PARAM.finditer(self.template)]

    @property
    def starlette_path(self) -> str:
        return _PARAM.sub(lambda m: "{" + m.group(1).replace(".", "__") + ":identifier}", self.template)

    @property
    def public(self) -> bool:
        return self.auth not in (options_pb2.AUTH_POLICY_UNSPECIFIED, options_pb2.AUTH_POLICY_SECRET_OR_APPROVER)


def _rules(method: d.MethodDescriptor) -> Iterable[http_pb2.HttpRule]:
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    if rule.WhichOneof("pattern"):
        yield rule
    yield from rule.additional_bindings


def bindings(services: Iterable[d.ServiceDescriptor]) -> list[Binding]:
    out = []
    for service in services:
        for method in service.methods:
            opts = method.GetOptions()
            for index, rule in enumerate(_rules(method)):
                verb = rule.WhichOneof("pattern")
                if verb is None or verb == "custom":
                    continue
                out.append(Binding(
                    verb=verb.upper(), template=getattr(rule, verb), rpc=f"/{service.full_name}/{method.name}",
                    method=method, body=rule.body, response_body=rule.response_body,
                    request_class=GetMessageClass(method.input_type),
                    response_class=GetMessageClass(method.output_type),
                    envelope=opts.Extensions[options_pb2.envelope],
                    success_message=opts.Extensions[options_pb2.success_message] or "success",
                    auth=opts.Extensions[options_pb2.auth], index=index,
                ))
    return out


def _specificity(template: str) -> tuple[tuple[int, str], ...]:
    return tuple((1, "") if seg.startswith("{") else (0, seg) for seg in template.strip("/").split("/"))


def by_template(all_bindings: Iterable[Binding]) -> list[tuple[str, dict[str, Binding]]]:
    """`[(template, {verb: binding})]`, literal segments before parameters."""
    table: dict[str, dict[str, Binding]] = {}
    for b in all_bindings:
        verbs = table.setdefault(b.template, {})
        if b.verb in verbs:
            raise ValueError(f"two RPCs bind {b.verb} {b.template}: {verbs[b.verb].rpc} and {b.rpc}")
        verbs[b.verb] = b
    return sorted(table.items(), key=lambda item: _specificity(item[0]))
