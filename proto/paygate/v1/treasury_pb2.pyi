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

class SweepTransaction(_message.Message):
    __slots__ = ("id", "type", "tx_hash", "from_address", "to_address", "amount", "asset_id", "status", "fee")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TX_HASH_FIELD_NUMBER: _ClassVar[int]
    FROM_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    TO_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    tx_hash: str
    from_address: str
    to_address: str
    amount: str
    asset_id: str
    status: str
    fee: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., tx_hash: _Optional[str] = ..., from_address: _Optional[str] = ..., to_address: _Optional[str] = ..., amount: _Optional[str] = ..., asset_id: _Optional[str] = ..., status: _Optional[str] = ..., fee: _Optional[str] = ...) -> None: ...

class Sweep(_message.Message):
    __slots__ = ("id", "object", "network", "asset_id", "source_address", "destination_address", "amount", "network_fee", "network_fee_asset_id", "status", "failure_reason", "tx_hash", "transactions", "created", "updated")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FEE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FEE_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_REASON_FIELD_NUMBER: _ClassVar[int]
    TX_HASH_FIELD_NUMBER: _ClassVar[int]
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    network: str
    asset_id: str
    source_address: str
    destination_address: str
    amount: str
    network_fee: str
    network_fee_asset_id: str
    status: str
    failure_reason: str
    tx_hash: str
    transactions: _containers.RepeatedCompositeFieldContainer[SweepTransaction]
    created: int
    updated: int
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., network: _Optional[str] = ..., asset_id: _Optional[str] = ..., source_address: _Optional[str] = ..., destination_address: _Optional[str] = ..., amount: _Optional[str] = ..., network_fee: _Optional[str] = ..., network_fee_asset_id: _Optional[str] = ..., status: _Optional[str] = ..., failure_reason: _Optional[str] = ..., tx_hash: _Optional[str] = ..., transactions: _Optional[_Iterable[_Union[SweepTransaction, _Mapping]]] = ..., created: _Optional[int] = ..., updated: _Optional[int] = ...) -> None: ...

class ListSweepsRequest(_message.Message):
    __slots__ = ("page", "page_size")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class ListSweepsResponse(_message.Message):
    __slots__ = ("sweeps", "total", "page", "page_size")
    SWEEPS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    sweeps: _containers.RepeatedCompositeFieldContainer[Sweep]
    total: int
    page: int
    page_size: int
    def __init__(self, sweeps: _Optional[_Iterable[_Union[Sweep, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...
