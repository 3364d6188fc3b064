from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Merchant(_message.Message):
    __slots__ = ("id", "object", "name", "livemode", "test", "live", "created", "merchant_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    TEST_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    name: str
    livemode: bool
    test: MerchantMode
    live: MerchantMode
    created: int
    merchant_id: str
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., name: _Optional[str] = ..., livemode: _Optional[bool] = ..., test: _Optional[_Union[MerchantMode, _Mapping]] = ..., live: _Optional[_Union[MerchantMode, _Mapping]] = ..., created: _Optional[int] = ..., merchant_id: _Optional[str] = ...) -> None: ...

class MerchantMode(_message.Message):
    __slots__ = ("public_key", "secret_key_hint", "treasury_address")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    SECRET_KEY_HINT_FIELD_NUMBER: _ClassVar[int]
    TREASURY_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    public_key: str
    secret_key_hint: str
    treasury_address: str
    def __init__(self, public_key: _Optional[str] = ..., secret_key_hint: _Optional[str] = ..., treasury_address: _Optional[str] = ...) -> None: ...

class GetCurrentMerchantRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCurrentMerchantResponse(_message.Message):
    __slots__ = ("merchant",)
    MERCHANT_FIELD_NUMBER: _ClassVar[int]
    merchant: Merchant
    def __init__(self, merchant: _Optional[_Union[Merchant, _Mapping]] = ...) -> None: ...
