from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from paygate.v1 import money_pb2 as _money_pb2
from paygate.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RefundStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REFUND_STATUS_UNSPECIFIED: _ClassVar[RefundStatus]
    REFUND_STATUS_PENDING: _ClassVar[RefundStatus]
    REFUND_STATUS_PROCESSING: _ClassVar[RefundStatus]
    REFUND_STATUS_SUCCESS: _ClassVar[RefundStatus]
    REFUND_STATUS_FAILED: _ClassVar[RefundStatus]
    REFUND_STATUS_IN_TRANSIT: _ClassVar[RefundStatus]

class RefundReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REFUND_REASON_UNSPECIFIED: _ClassVar[RefundReason]
    REFUND_REASON_REQUESTED_BY_CUSTOMER: _ClassVar[RefundReason]
    REFUND_REASON_DUPLICATE: _ClassVar[RefundReason]
    REFUND_REASON_FRAUDULENT: _ClassVar[RefundReason]
    REFUND_REASON_ORDER_CANCELLED: _ClassVar[RefundReason]
    REFUND_REASON_PRODUCT_NOT_RECEIVED: _ClassVar[RefundReason]
    REFUND_REASON_PRODUCT_DEFECTIVE: _ClassVar[RefundReason]
    REFUND_REASON_OTHER: _ClassVar[RefundReason]

class AmlStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AML_STATUS_UNSPECIFIED: _ClassVar[AmlStatus]
    AML_STATUS_APPROVED: _ClassVar[AmlStatus]
    AML_STATUS_REJECTED: _ClassVar[AmlStatus]

class RefundTransactionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REFUND_TRANSACTION_TYPE_UNSPECIFIED: _ClassVar[RefundTransactionType]
    REFUND_TRANSACTION_TYPE_REFUND: _ClassVar[RefundTransactionType]

class RefundTransactionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REFUND_TRANSACTION_STATUS_UNSPECIFIED: _ClassVar[RefundTransactionStatus]
    REFUND_TRANSACTION_STATUS_PENDING: _ClassVar[RefundTransactionStatus]
    REFUND_TRANSACTION_STATUS_CONFIRMED: _ClassVar[RefundTransactionStatus]
    REFUND_TRANSACTION_STATUS_FAILED: _ClassVar[RefundTransactionStatus]
REFUND_STATUS_UNSPECIFIED: RefundStatus
REFUND_STATUS_PENDING: RefundStatus
REFUND_STATUS_PROCESSING: RefundStatus
REFUND_STATUS_SUCCESS: RefundStatus
REFUND_STATUS_FAILED: RefundStatus
REFUND_STATUS_IN_TRANSIT: RefundStatus
REFUND_REASON_UNSPECIFIED: RefundReason
REFUND_REASON_REQUESTED_BY_CUSTOMER: RefundReason
REFUND_REASON_DUPLICATE: RefundReason
REFUND_REASON_FRAUDULENT: RefundReason
REFUND_REASON_ORDER_CANCELLED: RefundReason
REFUND_REASON_PRODUCT_NOT_RECEIVED: RefundReason
REFUND_REASON_PRODUCT_DEFECTIVE: RefundReason
REFUND_REASON_OTHER: RefundReason
AML_STATUS_UNSPECIFIED: AmlStatus
AML_STATUS_APPROVED: AmlStatus
AML_STATUS_REJECTED: AmlStatus
REFUND_TRANSACTION_TYPE_UNSPECIFIED: RefundTransactionType
REFUND_TRANSACTION_TYPE_REFUND: RefundTransactionType
REFUND_TRANSACTION_STATUS_UNSPECIFIED: RefundTransactionStatus
REFUND_TRANSACTION_STATUS_PENDING: RefundTransactionStatus
REFUND_TRANSACTION_STATUS_CONFIRMED: RefundTransactionStatus
REFUND_TRANSACTION_STATUS_FAILED: RefundTransactionStatus

class Refund(_message.Message):
    __slots__ = ("id", "object", "amount", "network_fee", "net_amount", "created", "description", "transactions", "failure_reason", "metadata", "charge", "payment_intent", "refund_address", "reason", "status", "exchange_rate", "unexpected_funds", "approval_status")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FEE_FIELD_NUMBER: _ClassVar[int]
    NET_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_REASON_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    REFUND_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_RATE_FIELD_NUMBER: _ClassVar[int]
    UNEXPECTED_FUNDS_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    amount: _money_pb2.AssetAmount
    network_fee: _money_pb2.AssetAmount
    net_amount: _money_pb2.AssetAmount
    created: int
    description: str
    transactions: _containers.RepeatedCompositeFieldContainer[RefundTransaction]
    failure_reason: str
    metadata: _struct_pb2.Struct
    charge: str
    payment_intent: str
    refund_address: str
    reason: RefundReason
    status: RefundStatus
    exchange_rate: str
    unexpected_funds: bool
    approval_status: str
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., network_fee: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., net_amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., created: _Optional[int] = ..., description: _Optional[str] = ..., transactions: _Optional[_Iterable[_Union[RefundTransaction, _Mapping]]] = ..., failure_reason: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., charge: _Optional[str] = ..., payment_intent: _Optional[str] = ..., refund_address: _Optional[str] = ..., reason: _Optional[_Union[RefundReason, str]] = ..., status: _Optional[_Union[RefundStatus, str]] = ..., exchange_rate: _Optional[str] = ..., unexpected_funds: _Optional[bool] = ..., approval_status: _Optional[str] = ...) -> None: ...

class RefundTransaction(_message.Message):
    __slots__ = ("tx_id", "source_address", "destination_address", "tx_hash", "amount", "decimals", "asset_id", "token", "network", "type", "created_at", "status", "aml_status", "aml_info", "charge_id", "refund_id", "fee_info", "fee_currency")
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
    AML_STATUS_FIELD_NUMBER: _ClassVar[int]
    AML_INFO_FIELD_NUMBER: _ClassVar[int]
    CHARGE_ID_FIELD_NUMBER: _ClassVar[int]
    REFUND_ID_FIELD_NUMBER: _ClassVar[int]
    FEE_INFO_FIELD_NUMBER: _ClassVar[int]
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
    type: RefundTransactionType
    created_at: int
    status: RefundTransactionStatus
    aml_status: AmlStatus
    aml_info: str
    charge_id: str
    refund_id: str
    fee_info: str
    fee_currency: str
    def __init__(self, tx_id: _Optional[str] = ..., source_address: _Optional[str] = ..., destination_address: _Optional[str] = ..., tx_hash: _Optional[str] = ..., amount: _Optional[str] = ..., decimals: _Optional[int] = ..., asset_id: _Optional[str] = ..., token: _Optional[str] = ..., network: _Optional[str] = ..., type: _Optional[_Union[RefundTransactionType, str]] = ..., created_at: _Optional[int] = ..., status: _Optional[_Union[RefundTransactionStatus, str]] = ..., aml_status: _Optional[_Union[AmlStatus, str]] = ..., aml_info: _Optional[str] = ..., charge_id: _Optional[str] = ..., refund_id: _Optional[str] = ..., fee_info: _Optional[str] = ..., fee_currency: _Optional[str] = ...) -> None: ...

class CreateRefundRequest(_message.Message):
    __slots__ = ("payment_intent_id", "amount", "reason", "metadata", "refund_address", "description", "asset_id")
    PAYMENT_INTENT_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REFUND_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    payment_intent_id: str
    amount: str
    reason: RefundReason
    metadata: _struct_pb2.Struct
    refund_address: str
    description: str
    asset_id: str
    def __init__(self, payment_intent_id: _Optional[str] = ..., amount: _Optional[str] = ..., reason: _Optional[_Union[RefundReason, str]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., refund_address: _Optional[str] = ..., description: _Optional[str] = ..., asset_id: _Optional[str] = ...) -> None: ...

class CreateRefundResponse(_message.Message):
    __slots__ = ("refunds",)
    REFUNDS_FIELD_NUMBER: _ClassVar[int]
    refunds: _containers.RepeatedCompositeFieldContainer[Refund]
    def __init__(self, refunds: _Optional[_Iterable[_Union[Refund, _Mapping]]] = ...) -> None: ...

class GetRefundRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetRefundResponse(_message.Message):
    __slots__ = ("refund",)
    REFUND_FIELD_NUMBER: _ClassVar[int]
    refund: Refund
    def __init__(self, refund: _Optional[_Union[Refund, _Mapping]] = ...) -> None: ...

class ListRefundsRequest(_message.Message):
    __slots__ = ("page", "page_size", "payment_intent")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    payment_intent: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., payment_intent: _Optional[str] = ...) -> None: ...

class ListRefundsResponse(_message.Message):
    __slots__ = ("refunds", "total", "page", "page_size")
    REFUNDS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    refunds: _containers.RepeatedCompositeFieldContainer[Refund]
    total: int
    page: int
    page_size: int
    def __init__(self, refunds: _Optional[_Iterable[_Union[Refund, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...
