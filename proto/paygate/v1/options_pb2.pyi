from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class AuthPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUTH_POLICY_UNSPECIFIED: _ClassVar[AuthPolicy]
    AUTH_POLICY_NONE: _ClassVar[AuthPolicy]
    AUTH_POLICY_SECRET_OR_CLIENT_SECRET: _ClassVar[AuthPolicy]
    AUTH_POLICY_PUBLIC_KEY_OPTIONAL: _ClassVar[AuthPolicy]
    AUTH_POLICY_SECRET_OR_APPROVER: _ClassVar[AuthPolicy]

class Envelope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENVELOPE_UNSPECIFIED: _ClassVar[Envelope]
    ENVELOPE_WITHOUT_DATA: _ClassVar[Envelope]
AUTH_POLICY_UNSPECIFIED: AuthPolicy
AUTH_POLICY_NONE: AuthPolicy
AUTH_POLICY_SECRET_OR_CLIENT_SECRET: AuthPolicy
AUTH_POLICY_PUBLIC_KEY_OPTIONAL: AuthPolicy
AUTH_POLICY_SECRET_OR_APPROVER: AuthPolicy
ENVELOPE_UNSPECIFIED: Envelope
ENVELOPE_WITHOUT_DATA: Envelope
AUTH_FIELD_NUMBER: _ClassVar[int]
auth: _descriptor.FieldDescriptor
ENVELOPE_FIELD_NUMBER: _ClassVar[int]
envelope: _descriptor.FieldDescriptor
SUCCESS_MESSAGE_FIELD_NUMBER: _ClassVar[int]
success_message: _descriptor.FieldDescriptor
WIRE_VALUE_FIELD_NUMBER: _ClassVar[int]
wire_value: _descriptor.FieldDescriptor
JSON_NUMBER_FIELD_NUMBER: _ClassVar[int]
json_number: _descriptor.FieldDescriptor
JSON_DOCUMENT_FIELD_NUMBER: _ClassVar[int]
json_document: _descriptor.FieldDescriptor
MONEY_INPUT_FIELD_NUMBER: _ClassVar[int]
money_input: _descriptor.FieldDescriptor
FLATTEN_FIELD_NUMBER: _ClassVar[int]
flatten: _descriptor.FieldDescriptor
