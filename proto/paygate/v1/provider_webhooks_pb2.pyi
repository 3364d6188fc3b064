from paygate.v1 import options_pb2 as _options_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ReceiveProviderAWebhookRequest(_message.Message):
    __slots__ = ("merchant_id", "payload", "signature")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    payload: bytes
    signature: str
    def __init__(self, merchant_id: _Optional[str] = ..., payload: _Optional[bytes] = ..., signature: _Optional[str] = ...) -> None: ...

class ReceiveProviderAWebhookResponse(_message.Message):
    __slots__ = ("received",)
    RECEIVED_FIELD_NUMBER: _ClassVar[int]
    received: bool
    def __init__(self, received: _Optional[bool] = ...) -> None: ...
