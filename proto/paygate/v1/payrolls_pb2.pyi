from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Payroll(_message.Message):
    __slots__ = ("id", "created_at", "updated_at", "canceled_at", "merchant_id", "external_id", "approval_status", "status", "total_item_num", "total_amount", "total_service_fee", "currency", "livemode")
    ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    CANCELED_AT_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ITEM_NUM_FIELD_NUMBER: _ClassVar[int]
    TOTAL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SERVICE_FEE_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    id: str
    created_at: int
    updated_at: int
    canceled_at: int
    merchant_id: str
    external_id: str
    approval_status: str
    status: str
    total_item_num: int
    total_amount: str
    total_service_fee: str
    currency: str
    livemode: bool
    def __init__(self, id: _Optional[str] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., canceled_at: _Optional[int] = ..., merchant_id: _Optional[str] = ..., external_id: _Optional[str] = ..., approval_status: _Optional[str] = ..., status: _Optional[str] = ..., total_item_num: _Optional[int] = ..., total_amount: _Optional[str] = ..., total_service_fee: _Optional[str] = ..., currency: _Optional[str] = ..., livemode: _Optional[bool] = ...) -> None: ...

class PayrollTransaction(_message.Message):
    __slots__ = ("tx_id", "source_address", "destination_address", "tx_hash", "amount", "decimals", "asset_id", "token", "network", "type", "created_at", "status", "fee_currency")
    TX_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    TX_HASH_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    DECIMALS_FIELD_NUMBER: _ClassVar[int]
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FEE_CURRENCY_FIELD_NUMBER: _ClassVar[int]
    tx_id: str
    source_address: str
    destination_address: str
    tx_hash: str
    amount: str
    decimals: int
    asset_id: str
    token: str
    network: str
    type: str
    created_at: int
    status: str
    fee_currency: str
    def __init__(self, tx_id: _Optional[str] = ..., source_address: _Optional[str] = ..., destination_address: _Optional[str] = ..., tx_hash: _Optional[str] = ..., amount: _Optional[str] = ..., decimals: _Optional[int] = ..., asset_id: _Optional[str] = ..., token: _Optional[str] = ..., network: _Optional[str] = ..., type: _Optional[str] = ..., created_at: _Optional[int] = ..., status: _Optional[str] = ..., fee_currency: _Optional[str] = ...) -> None: ...

class PayrollItem(_message.Message):
    __slots__ = ("id", "created_at", "updated_at", "payroll_id", "external_id", "name", "email", "phone", "amount", "service_fee", "coin", "network", "asset_id", "address", "address_verified", "status", "transactions", "payment_method", "tx_id", "fail_reason", "payout_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    PAYROLL_ID_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    SERVICE_FEE_FIELD_NUMBER: _ClassVar[int]
    COIN_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_VERIFIED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    TX_ID_FIELD_NUMBER: _ClassVar[int]
    FAIL_REASON_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    created_at: int
    updated_at: int
    payroll_id: str
    external_id: str
    name: str
    email: str
    phone: str
    amount: str
    service_fee: str
    coin: str
    network: str
    asset_id: str
    address: str
    address_verified: bool
    status: str
    transactions: _containers.RepeatedCompositeFieldContainer[PayrollTransaction]
    payment_method: str
    tx_id: str
    fail_reason: str
    payout_id: str
    def __init__(self, id: _Optional[str] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., payroll_id: _Optional[str] = ..., external_id: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., amount: _Optional[str] = ..., service_fee: _Optional[str] = ..., coin: _Optional[str] = ..., network: _Optional[str] = ..., asset_id: _Optional[str] = ..., address: _Optional[str] = ..., address_verified: _Optional[bool] = ..., status: _Optional[str] = ..., transactions: _Optional[_Iterable[_Union[PayrollTransaction, _Mapping]]] = ..., payment_method: _Optional[str] = ..., tx_id: _Optional[str] = ..., fail_reason: _Optional[str] = ..., payout_id: _Optional[str] = ...) -> None: ...

class PayrollDirectItem(_message.Message):
    __slots__ = ("external_id", "name", "email", "phone", "amount", "coin", "network", "address", "payment_method")
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    COIN_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    external_id: str
    name: str
    email: str
    phone: str
    amount: str
    coin: str
    network: str
    address: str
    payment_method: str
    def __init__(self, external_id: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., amount: _Optional[str] = ..., coin: _Optional[str] = ..., network: _Optional[str] = ..., address: _Optional[str] = ..., payment_method: _Optional[str] = ...) -> None: ...

class CreateDirectPayrollRequest(_message.Message):
    __slots__ = ("external_id", "items", "auto_approve")
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    AUTO_APPROVE_FIELD_NUMBER: _ClassVar[int]
    external_id: str
    items: _containers.RepeatedCompositeFieldContainer[PayrollDirectItem]
    auto_approve: bool
    def __init__(self, external_id: _Optional[str] = ..., items: _Optional[_Iterable[_Union[PayrollDirectItem, _Mapping]]] = ..., auto_approve: _Optional[bool] = ...) -> None: ...

class CreateDirectPayrollResponse(_message.Message):
    __slots__ = ("payroll", "items")
    PAYROLL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    payroll: Payroll
    items: _containers.RepeatedCompositeFieldContainer[PayrollItem]
    def __init__(self, payroll: _Optional[_Union[Payroll, _Mapping]] = ..., items: _Optional[_Iterable[_Union[PayrollItem, _Mapping]]] = ...) -> None: ...

class ConfirmPayrollRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ConfirmPayrollResponse(_message.Message):
    __slots__ = ("payroll", "items")
    PAYROLL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    payroll: Payroll
    items: _containers.RepeatedCompositeFieldContainer[PayrollItem]
    def __init__(self, payroll: _Optional[_Union[Payroll, _Mapping]] = ..., items: _Optional[_Iterable[_Union[PayrollItem, _Mapping]]] = ...) -> None: ...

class GetPayrollRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetPayrollResponse(_message.Message):
    __slots__ = ("payroll", "items")
    PAYROLL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    payroll: Payroll
    items: _containers.RepeatedCompositeFieldContainer[PayrollItem]
    def __init__(self, payroll: _Optional[_Union[Payroll, _Mapping]] = ..., items: _Optional[_Iterable[_Union[PayrollItem, _Mapping]]] = ...) -> None: ...

class ListPayrollsRequest(_message.Message):
    __slots__ = ("page", "page_size", "external_id", "payroll_id", "status")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    PAYROLL_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    external_id: str
    payroll_id: str
    status: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., external_id: _Optional[str] = ..., payroll_id: _Optional[str] = ..., status: _Optional[str] = ...) -> None: ...

class ListPayrollsResponse(_message.Message):
    __slots__ = ("payrolls", "total")
    PAYROLLS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    payrolls: _containers.RepeatedCompositeFieldContainer[Payroll]
    total: int
    def __init__(self, payrolls: _Optional[_Iterable[_Union[Payroll, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class ListPayrollItemsRequest(_message.Message):
    __slots__ = ("page", "page_size", "payroll_id", "external_id", "item_external_id", "employee_name")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAYROLL_ID_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    ITEM_EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    EMPLOYEE_NAME_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    payroll_id: str
    external_id: str
    item_external_id: str
    employee_name: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., payroll_id: _Optional[str] = ..., external_id: _Optional[str] = ..., item_external_id: _Optional[str] = ..., employee_name: _Optional[str] = ...) -> None: ...

class ListPayrollItemsResponse(_message.Message):
    __slots__ = ("payroll_items", "total")
    PAYROLL_ITEMS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    payroll_items: _containers.RepeatedCompositeFieldContainer[PayrollItem]
    total: int
    def __init__(self, payroll_items: _Optional[_Iterable[_Union[PayrollItem, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...
