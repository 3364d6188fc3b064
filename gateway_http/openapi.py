"""`/openapi.json`: an OpenAPI 3.1 document generated from the same descriptors as the routes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf import descriptor as d
from paygate.v1 import options_pb2

from gateway_http.codec import enum_wire
from gateway_http.routes import Binding

F = d.FieldDescriptor
_INTS = {F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32, F.TYPE_UINT32, F.TYPE_FIXED32, F.TYPE_INT64,
         F.TYPE_SINT64, F.TYPE_SFIXED64, F.TYPE_UINT64, F.TYPE_FIXED64}


def _field_schema(field: d.FieldDescriptor, components: dict[str, Any]) -> dict[str, Any]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value = field.message_type.fields_by_name["value"]
        return {"type": "object", "additionalProperties": _single(value, components)}
    single = _single(field, components)
    if field.is_repeated:
        return {"type": "array", "items": single}
    if (field.has_presence and field.message_type is None) or (
            field.message_type is not None and field.message_type.full_name != "google.protobuf.Struct"):
        return {"anyOf": [single, {"type": "null"}]}
    return single


def _single(field: d.FieldDescriptor, components: dict[str, Any]) -> dict[str, Any]:
    if field.message_type is not None:
        name = field.message_type.full_name
        if name in ("google.protobuf.Struct", "google.protobuf.Value"):
            return {"type": "object"}
        if name == "google.protobuf.FieldMask":
            return {"type": "string", "description": "comma-separated field names"}
        return {"$ref": f"#/components/schemas/{_message(field.message_type, components)}"}
    if field.type == F.TYPE_ENUM:
        return {"type": "string", "enum": [w for w in enum_wire(field.enum_type)[0].values()]}
    if field.type == F.TYPE_BOOL:
        return {"type": "boolean"}
    if field.type in _INTS:
        return {"type": "integer"}
    if field.type in (F.TYPE_DOUBLE, F.TYPE_FLOAT):
        return {"type": "number"}
    if field.GetOptions().Extensions[options_pb2.json_number]:
        return {"type": "number", "description": "exact decimal"}
    if field.GetOptions().Extensions[options_pb2.json_document]:
        return {"type": "object", "nullable": True}
    return {"type": "string"}


def _message(message: d.Descriptor, components: dict[str, Any]) -> str:
    name = message.full_name.removeprefix("paygate.v1.").replace(".", "_")
    if name not in components:
        components[name] = {}  # placeholder first: messages may refer to themselves
        components[name] = {"type": "object", "properties": {
            f.name: _field_schema(f, components) for f in message.fields}}
    return name


def _operation(b: Binding, components: dict[str, Any]) -> dict[str, Any]:
    params = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in b.path_params]
    request_name = _message(b.method.input_type, components)
    if not b.body:
        for f in b.method.input_type.fields:
            if f.name not in b.path_params and f.message_type is None:
                params.append({"name": f.name, "in": "query", "required": False, "schema": _single(f, components)})
    if b.response_body:
        data = _field_schema(b.method.output_type.fields_by_name[b.response_body], components)
    else:
        data = {"$ref": f"#/components/schemas/{_message(b.method.output_type, components)}"}
    envelope: dict[str, Any] = {"type": "object", "properties": {
        "code": {"type": "integer"}, "error_code": {"type": "string"}, "msg": {"type": "string"}}}
    if b.envelope != options_pb2.ENVELOPE_WITHOUT_DATA:
        envelope["properties"]["data"] = data
    op: dict[str, Any] = {
        "operationId": b.method.name if b.index == 0 else f"{b.method.name}{b.index + 1}",
        "summary": b.method.name,
        "tags": [b.method.containing_service.name.removesuffix("Service")],
        "parameters": params,
        "responses": {"200": {"description": "success", "content": {"application/json": {"schema": envelope}}},
                      "default": {"description": "error envelope",
                                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}},
    }
    if b.body:
        op["requestBody"] = {"required": False, "content": {"application/json": {
            "schema": {"$ref": f"#/components/schemas/{request_name}"}}}}
    if b.auth == options_pb2.AUTH_POLICY_NONE or b.auth == options_pb2.AUTH_POLICY_PUBLIC_KEY_OPTIONAL:
        op["security"] = []
    elif b.auth == options_pb2.AUTH_POLICY_SECRET_OR_CLIENT_SECRET:
        op["security"] = [{"basicAuth": []}, {}]
    return op


def document(all_bindings: Iterable[Binding], *, title: str = "paygate") -> dict[str, Any]:
    components: dict[str, Any] = {"Error": {"type": "object", "properties": {
        "code": {"type": "integer"}, "error_code": {"type": "string"}, "msg": {"type": "string"},
        "data": {"type": "object"}}}}
    paths: dict[str, dict[str, Any]] = {}
    for b in all_bindings:
        op = _operation(b, components)
        paths.setdefault(b.template, {})[b.verb.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "v1",
                 "description": "Generated from the protobuf definitions (google.api.http annotations)."},
        "paths": paths,
        "components": {"schemas": components,
                       "securitySchemes": {"basicAuth": {"type": "http", "scheme": "basic",
                                                         "description": "secret key as the username"}}},
        "security": [{"basicAuth": []}],
    }
