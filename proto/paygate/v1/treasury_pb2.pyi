from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetBalanceRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BalanceDetail(_message.Message):
    __slots__ = ("currency", "available_balance", "pending_balance", "locked_balance", "frozen_balance", "total_balance")
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_BALANCE_FIELD_NUMBER: _ClassVar[int]
    PENDING_BALANCE_FIELD_NUMBER: _ClassVar[int]
    LOCKED_BALANCE_FIELD_NUMBER: _ClassVar[int]
    FROZEN_BALANCE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BALANCE_FIELD_NUMBER: _ClassVar[int]
    currency: str
    available_balance: str
    pending_balance: str
    locked_balance: str
    frozen_balance: str
    total_balance: str
    def __init__(self, currency: _Optional[str] = ..., available_balance: _Optional[str] = ..., pending_balance: _Optional[str] = ..., locked_balance: _Optional[str] = ..., frozen_balance: _Optional[str] = ..., total_balance: _Optional[str] = ...) -> None: ...

class GetBalanceResponse(_message.Message):
    __slots__ = ("currency", "available_balance", "pending_balance", "locked_balance", "frozen_balance", "total_balance", "balance_details")
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_BALANCE_FIELD_NUMBER: _ClassVar[int]
    PENDING_BALANCE_FIELD_NUMBER: _ClassVar[int]
    LOCKED_BALANCE_FIELD_NUMBER: _ClassVar[int]
    FROZEN_BALANCE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BALANCE_FIELD_NUMBER: _ClassVar[int]
    BALANCE_DETAILS_FIELD_NUMBER: _ClassVar[int]
    currency: str
    available_balance: str
    pending_balance: str
    locked_balance: str
    frozen_balance: str
    total_balance: str
    balance_details: _containers.RepeatedCompositeFieldContainer[BalanceDetail]
    def __init__(self, currency: _Optional[str] = ..., available_balance: _Optional[str] = ..., pending_balance: _Optional[str] = ..., locked_balance: _Optional[str] = ..., frozen_balance: _Optional[str] = ..., total_balance: _Optional[str] = ..., balance_details: _Optional[_Iterable[_Union[BalanceDetail, _Mapping]]] = ...) -> None: ...
