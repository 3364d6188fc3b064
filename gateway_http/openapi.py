"""`/openapi.json`: an OpenAPI 3.1 document generated from the same descriptors as the routes.

The document is held to what the facade really sends, so that a fuzzer can check every answer against it:
* a response message prints every field (codec.encode), so every property is required and no other is allowed;
  unset optional scalars and unset messages are `null`, free metadata (Struct) is `{}`, maps are objects;
* a request message is what codec.decode accepts: a field marked REQUIRED in proto is required, the rest optional;
* a create call links to the calls that take the new object's id (OpenAPI links, for stateful fuzzing);
* every operation lists the error statuses the facade can answer, each with the error envelope
  (`code` = the status, a snake_case `error_code`, `msg`, `data` = `{}`); 401 carries `WWW-Authenticate`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.api import field_behavior_pb2
from google.protobuf import descriptor as d
from paygate.v1 import options_pb2

from gateway_http.routes import Binding
from wire.codec import enum_wire, flattened

F = d.FieldDescriptor
_INTS = {F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32, F.TYPE_UINT32, F.TYPE_FIXED32, F.TYPE_INT64,
         F.TYPE_SINT64, F.TYPE_SFIXED64, F.TYPE_UINT64, F.TYPE_FIXED64}
_WRAPPERS = {"google.protobuf." + n for n in ("Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
                                               "StringValue", "BoolValue", "DoubleValue", "FloatValue")}
# Every status the facade answers with an error envelope (DESIGN.md §2), whatever the operation: bad input, a
# credential missing or misused, an unknown id or route, a state conflict, body limits, rate limits, and the
# server's own failures (a database that is down answers 503; 501 for an RPC not implemented yet).
ERROR_STATUSES = {
    "400": "parameter_missing, parameter_invalid or a business rule",
    "401": "missing or wrong credential",
    "403": "a valid credential used where it is not allowed",
    "404": "unknown (or another merchant's) object, or no such route",
    "405": "method not allowed",
    "409": "state conflict",
    "413": "body too large",
    "415": "body is not application/json",
    "429": "rate limited",
    "500": "server error (never with internals in msg)",
    "501": "the RPC is not implemented yet",
    "503": "service unavailable",
    "504": "the server did not answer in time",
}


class _Schemas:
    """The `components.schemas` being built; requests and responses of one message are two schemas."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {"Error": _error_schema()}

    def message(self, message: d.Descriptor, *, output: bool) -> dict[str, Any]:
        name = message.full_name.removeprefix("paygate.v1.").replace(".", "_") + ("" if output else "_input")
        if name not in self.components:
            self.components[name] = {}  # placeholder first: messages may refer to themselves
            props = self._properties(message, output=output)
            schema: dict[str, Any] = {"type": "object", "properties": props}
            if output:
                schema["required"] = list(props)
                schema["additionalProperties"] = False
            else:
                required = [f.name for f in message.fields if _required(f)]
                if required:
                    schema["required"] = required
            self.components[name] = schema
        return {"$ref": f"#/components/schemas/{name}"}

    def _properties(self, message: d.Descriptor, *, output: bool) -> dict[str, Any]:
        """The message's fields; on output a field marked `flatten` contributes its message's fields instead
        (the codec's rule: the enclosing message's own names win)."""
        props: dict[str, Any] = {}
        for f in message.fields:
            if output and flattened(f) and f.message_type is not None:
                props = {**self._properties(f.message_type, output=output), **props}
            else:
                props[f.name] = self.field(f, output=output)
        return props

    def field(self, field: d.FieldDescriptor, *, output: bool) -> dict[str, Any]:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = field.message_type.fields_by_name["value"]
            return {"type": "object", "additionalProperties": self.single(value, output=output)}
        single = self.single(field, output=output)
        if field.is_repeated:
            return {"type": "array", "items": single}
        if not output:
            return single  # `null` on input means "not given" (DESIGN.md §12), for any field
        if field.message_type is not None and field.message_type.full_name == "google.protobuf.Struct":
            return single  # free metadata prints `{}` when unset
        if field.message_type is not None or field.has_presence:
            return {"anyOf": [single, {"type": "null"}]}
        return single

    def single(self, field: d.FieldDescriptor, *, output: bool) -> dict[str, Any]:
        if field.message_type is not None:
            name = field.message_type.full_name
            if name == "google.protobuf.Struct":
                return {"type": "object"}
            if name == "google.protobuf.Value":
                return {}
            if name in _WRAPPERS:
                return self.single(field.message_type.fields_by_name["value"], output=output)
            if name == "google.protobuf.FieldMask":
                return {"type": "string", "description": "comma-separated field names"}
            return self.message(field.message_type, output=output)
        if field.type == F.TYPE_ENUM:
            return {"type": "string", "enum": list(enum_wire(field.enum_type)[0].values())}
        if field.type == F.TYPE_BOOL:
            return {"type": "boolean"}
        if field.type in _INTS:
            return {"type": "integer"}
        if field.type in (F.TYPE_DOUBLE, F.TYPE_FLOAT):
            return {"type": "number"}
        if field.type == F.TYPE_BYTES:
            return {"type": "string", "contentEncoding": "base64"}
        opts = field.GetOptions()
        if output and opts.Extensions[options_pb2.json_number]:
            return {"type": "number", "description": "exact decimal"}
        if output and opts.Extensions[options_pb2.json_document]:
            return {"description": "a JSON document, inline"}
        return {"type": "string"}


def _required(field: d.FieldDescriptor) -> bool:
    return field_behavior_pb2.REQUIRED in field.GetOptions().Extensions[field_behavior_pb2.field_behavior]


def _error_schema() -> dict[str, Any]:
    return {"type": "object", "required": ["code", "error_code", "msg", "data"], "additionalProperties": False,
            "properties": {"code": {"type": "integer", "minimum": 400, "maximum": 599},
                           "error_code": {"type": "string", "pattern": "^[A-Za-z][A-Za-z_]*$"},
                           "msg": {"type": "string"},
                           "data": {"type": "object", "maxProperties": 0}}}


def _envelope(b: Binding, schemas: _Schemas) -> dict[str, Any]:
    props: dict[str, Any] = {"code": {"const": 0}, "error_code": {"const": "success"}, "msg": {"type": "string"}}
    if b.envelope != options_pb2.ENVELOPE_WITHOUT_DATA:
        if b.response_body:
            props["data"] = schemas.field(b.method.output_type.fields_by_name[b.response_body], output=True)
        else:
            props["data"] = schemas.message(b.method.output_type, output=True)
    return {"type": "object", "required": list(props), "additionalProperties": False, "properties": props}


def _errors() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for status, description in ERROR_STATUSES.items():
        response: dict[str, Any] = {"description": description, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}}
        if status == "401":
            response["headers"] = {"WWW-Authenticate": {"required": True, "schema": {"type": "string"}}}
        out[status] = response
    return out


def _operation(b: Binding, schemas: _Schemas) -> dict[str, Any]:
    params = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in b.path_params]
    if not b.body:
        for f in b.method.input_type.fields:
            scalar = f.message_type is None or f.message_type.full_name in _WRAPPERS
            if f.name not in b.path_params and scalar:
                params.append({"name": f.name, "in": "query", "required": False,
                               "schema": schemas.field(f, output=False)})
    op: dict[str, Any] = {
        "operationId": _operation_id(b),
        "summary": b.method.name,
        "tags": [b.method.containing_service.name.removesuffix("Service")],
        "parameters": params,
        "responses": {"200": {"description": "success", "content": {"application/json": {
            "schema": _envelope(b, schemas)}}}, **_errors()},
    }
    if b.body:
        if b.body == "*":
            body = schemas.message(b.method.input_type, output=False)
        else:
            body = schemas.field(b.method.input_type.fields_by_name[b.body], output=False)
        op["requestBody"] = {"required": False, "content": {"application/json": {"schema": body}}}
    if b.auth == options_pb2.AUTH_POLICY_NONE or b.auth == options_pb2.AUTH_POLICY_PUBLIC_KEY_OPTIONAL:
        op["security"] = []
    elif b.auth == options_pb2.AUTH_POLICY_SECRET_OR_CLIENT_SECRET:
        op["security"] = [{"basicAuth": []}, {}]
    return op


def _created_id(b: Binding) -> str | None:
    """Where a create call's answer holds the new object's id (`$response.body#/data/id`), if it does."""
    if b.verb != "POST" or b.path_params or not b.method.name.startswith("Create") or not b.response_body:
        return None
    field = b.method.output_type.fields_by_name[b.response_body]
    if field.message_type is None or field.is_repeated or "id" not in field.message_type.fields_by_name:
        return None
    return "$response.body#/data/id"


def _links(bindings: list[Binding]) -> dict[int, dict[str, Any]]:
    """OpenAPI links from each create call to the calls of its service that take the new object's `{id}`, so that
    a stateful client (schemathesis) can follow them."""
    out: dict[int, dict[str, Any]] = {}
    for i, b in enumerate(bindings):
        pointer = _created_id(b)
        if pointer is None:
            continue
        out[i] = {_operation_id(t): {"operationId": _operation_id(t), "parameters": {"path.id": pointer}}
                  for t in bindings
                  if t.method.containing_service is b.method.containing_service and "id" in t.path_params}
    return out


def _operation_id(b: Binding) -> str:
    return b.method.name if b.index == 0 else f"{b.method.name}{b.index + 1}"


def document(all_bindings: Iterable[Binding], *, title: str = "paygate") -> dict[str, Any]:
    schemas = _Schemas()
    paths: dict[str, dict[str, Any]] = {}
    listed = list(all_bindings)
    links = _links(listed)
    for i, b in enumerate(listed):
        op = _operation(b, schemas)
        if links.get(i):
            op["responses"]["200"]["links"] = links[i]
        paths.setdefault(b.template, {})[b.verb.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "v1",
                 "description": "Generated from the protobuf definitions (google.api.http annotations)."},
        "paths": paths,
        "components": {"schemas": schemas.components,
                       "securitySchemes": {"basicAuth": {"type": "http", "scheme": "basic",
                                                         "description": "secret key as the username"}}},
        "security": [{"basicAuth": []}],
    }
