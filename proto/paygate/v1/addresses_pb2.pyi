from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AddressVerification(_message.Message):
    __slots__ = ("id", "status", "merchant_address_id", "asset_id", "verified_at", "tried_times", "aml_status", "method", "nonce", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ADDRESS_ID_FIELD_NUMBER: _ClassVar[int]
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    TRIED_TIMES_FIELD_NUMBER: _ClassVar[int]
    AML_STATUS_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: str
    status: str
    merchant_address_id: str
    asset_id: str
    verified_at: int
    tried_times: int
    aml_status: str
    method: str
    nonce: str
    message: str
    def __init__(self, id: _Optional[str] = ..., status: _Optional[str] = ..., merchant_address_id: _Optional[str] = ..., asset_id: _Optional[str] = ..., verified_at: _Optional[int] = ..., tried_times: _Optional[int] = ..., aml_status: _Optional[str] = ..., method: _Optional[str] = ..., nonce: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class MerchantAddress(_message.Message):
    __slots__ = ("id", "merchant_id", "network", "address", "status", "alias", "verification", "created_at", "updated_at", "approval_status", "usable_from")
    ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    VERIFICATION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    USABLE_FROM_FIELD_NUMBER: _ClassVar[int]
    id: str
    merchant_id: str
    network: str
    address: str
    status: str
    alias: str
    verification: AddressVerification
    created_at: int
    updated_at: int
    approval_status: str
    usable_from: int
    def __init__(self, id: _Optional[str] = ..., merchant_id: _Optional[str] = ..., network: _Optional[str] = ..., address: _Optional[str] = ..., status: _Optional[str] = ..., alias: _Optional[str] = ..., verification: _Optional[_Union[AddressVerification, _Mapping]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., approval_status: _Optional[str] = ..., usable_from: _Optional[int] = ...) -> None: ...

class CreateAddressRequest(_message.Message):
    __slots__ = ("network", "address", "alias")
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    network: str
    address: str
    alias: str
    def __init__(self, network: _Optional[str] = ..., address: _Optional[str] = ..., alias: _Optional[str] = ...) -> None: ...

class CreateAddressResponse(_message.Message):
    __slots__ = ("merchant_address",)
    MERCHANT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    merchant_address: MerchantAddress
    def __init__(self, merchant_address: _Optional[_Union[MerchantAddress, _Mapping]] = ...) -> None: ...

class ListAddressesRequest(_message.Message):
    __slots__ = ("page", "page_size", "network")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    network: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., network: _Optional[str] = ...) -> None: ...

class ListAddressesResponse(_message.Message):
    __slots__ = ("merchant_addresses", "total", "page", "page_size")
    MERCHANT_ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    merchant_addresses: _containers.RepeatedCompositeFieldContainer[MerchantAddress]
    total: int
    page: int
    page_size: int
    def __init__(self, merchant_addresses: _Optional[_Iterable[_Union[MerchantAddress, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetAddressRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetAddressResponse(_message.Message):
    __slots__ = ("merchant_address",)
    MERCHANT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    merchant_address: MerchantAddress
    def __init__(self, merchant_address: _Optional[_Union[MerchantAddress, _Mapping]] = ...) -> None: ...

class UpdateAddressRequest(_message.Message):
    __slots__ = ("id", "alias")
    ID_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    id: str
    alias: str
    def __init__(self, id: _Optional[str] = ..., alias: _Optional[str] = ...) -> None: ...

class UpdateAddressResponse(_message.Message):
    __slots__ = ("merchant_address",)
    MERCHANT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    merchant_address: MerchantAddress
    def __init__(self, merchant_address: _Optional[_Union[MerchantAddress, _Mapping]] = ...) -> None: ...

class DeleteAddressRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteAddressResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class VerifyAddressRequest(_message.Message):
    __slots__ = ("id", "amount", "signature")
    ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    id: str
    amount: str
    signature: str
    def __init__(self, id: _Optional[str] = ..., amount: _Optional[str] = ..., signature: _Optional[str] = ...) -> None: ...

class VerifyAddressResponse(_message.Message):
    __slots__ = ("merchant_address",)
    MERCHANT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    merchant_address: MerchantAddress
    def __init__(self, merchant_address: _Optional[_Union[MerchantAddress, _Mapping]] = ...) -> None: ...
