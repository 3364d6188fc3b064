from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from paygate.v1 import addresses_pb2 as _addresses_pb2
from paygate.v1 import options_pb2 as _options_pb2
from paygate.v1 import refunds_pb2 as _refunds_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PayoutTransaction(_message.Message):
    __slots__ = ("id", "tx_hash", "status", "amount", "fee")
    ID_FIELD_NUMBER: _ClassVar[int]
    TX_HASH_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    id: str
    tx_hash: str
    status: str
    amount: str
    fee: str
    def __init__(self, id: _Optional[str] = ..., tx_hash: _Optional[str] = ..., status: _Optional[str] = ..., amount: _Optional[str] = ..., fee: _Optional[str] = ...) -> None: ...

class Payout(_message.Message):
    __slots__ = ("id", "object", "merchant_id", "source_coin", "source_amount", "receive_asset_id", "receive_account_id", "receive_address", "network", "payment_network_fee", "payment_network_fee_asset_id", "payment_net_amount", "status", "approval_status", "aml_status", "failure_reason", "external_id", "metadata", "internal_note", "statement_descriptor", "transactions", "created", "updated", "receive_wallet_address", "receive_account_type", "receive_coin", "livemode", "receive_amount")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_COIN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_NETWORK_FEE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_NETWORK_FEE_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_NET_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    AML_STATUS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_REASON_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    INTERNAL_NOTE_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_DESCRIPTOR_FIELD_NUMBER: _ClassVar[int]
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_WALLET_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ACCOUNT_TYPE_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_COIN_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    merchant_id: str
    source_coin: str
    source_amount: str
    receive_asset_id: str
    receive_account_id: str
    receive_address: str
    network: str
    payment_network_fee: str
    payment_network_fee_asset_id: str
    payment_net_amount: str
    status: str
    approval_status: str
    aml_status: str
    failure_reason: str
    external_id: str
    metadata: _struct_pb2.Struct
    internal_note: str
    statement_descriptor: str
    transactions: _containers.RepeatedCompositeFieldContainer[PayoutTransaction]
    created: int
    updated: int
    receive_wallet_address: _addresses_pb2.MerchantAddress
    receive_account_type: str
    receive_coin: str
    livemode: bool
    receive_amount: str
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., merchant_id: _Optional[str] = ..., source_coin: _Optional[str] = ..., source_amount: _Optional[str] = ..., receive_asset_id: _Optional[str] = ..., receive_account_id: _Optional[str] = ..., receive_address: _Optional[str] = ..., network: _Optional[str] = ..., payment_network_fee: _Optional[str] = ..., payment_network_fee_asset_id: _Optional[str] = ..., payment_net_amount: _Optional[str] = ..., status: _Optional[str] = ..., approval_status: _Optional[str] = ..., aml_status: _Optional[str] = ..., failure_reason: _Optional[str] = ..., external_id: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., internal_note: _Optional[str] = ..., statement_descriptor: _Optional[str] = ..., transactions: _Optional[_Iterable[_Union[PayoutTransaction, _Mapping]]] = ..., created: _Optional[int] = ..., updated: _Optional[int] = ..., receive_wallet_address: _Optional[_Union[_addresses_pb2.MerchantAddress, _Mapping]] = ..., receive_account_type: _Optional[str] = ..., receive_coin: _Optional[str] = ..., livemode: _Optional[bool] = ..., receive_amount: _Optional[str] = ...) -> None: ...

class CreatePayoutRequest(_message.Message):
    __slots__ = ("source_coin", "source_amount", "receive_asset_id", "receive_account_id", "receive_address", "external_id", "metadata", "internal_note", "statement_descriptor")
    SOURCE_COIN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    INTERNAL_NOTE_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_DESCRIPTOR_FIELD_NUMBER: _ClassVar[int]
    source_coin: str
    source_amount: str
    receive_asset_id: str
    receive_account_id: str
    receive_address: str
    external_id: str
    metadata: _struct_pb2.Struct
    internal_note: str
    statement_descriptor: str
    def __init__(self, source_coin: _Optional[str] = ..., source_amount: _Optional[str] = ..., receive_asset_id: _Optional[str] = ..., receive_account_id: _Optional[str] = ..., receive_address: _Optional[str] = ..., external_id: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., internal_note: _Optional[str] = ..., statement_descriptor: _Optional[str] = ...) -> None: ...

class PreviewPayoutRequest(_message.Message):
    __slots__ = ("source_coin", "source_amount", "receive_asset_id", "receive_account_id", "receive_address", "external_id", "metadata", "internal_note", "statement_descriptor")
    SOURCE_COIN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    INTERNAL_NOTE_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_DESCRIPTOR_FIELD_NUMBER: _ClassVar[int]
    source_coin: str
    source_amount: str
    receive_asset_id: str
    receive_account_id: str
    receive_address: str
    external_id: str
    metadata: _struct_pb2.Struct
    internal_note: str
    statement_descriptor: str
    def __init__(self, source_coin: _Optional[str] = ..., source_amount: _Optional[str] = ..., receive_asset_id: _Optional[str] = ..., receive_account_id: _Optional[str] = ..., receive_address: _Optional[str] = ..., external_id: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., internal_note: _Optional[str] = ..., statement_descriptor: _Optional[str] = ...) -> None: ...

class PreviewPayoutResponse(_message.Message):
    __slots__ = ("source_coin", "source_amount", "receive_asset_id", "payment_net_amount", "payment_network_fee", "payment_network_fee_asset_id", "available_balance", "receive_amount")
    SOURCE_COIN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_NET_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_NETWORK_FEE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_NETWORK_FEE_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_BALANCE_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    source_coin: str
    source_amount: str
    receive_asset_id: str
    payment_net_amount: str
    payment_network_fee: str
    payment_network_fee_asset_id: str
    available_balance: str
    receive_amount: str
    def __init__(self, source_coin: _Optional[str] = ..., source_amount: _Optional[str] = ..., receive_asset_id: _Optional[str] = ..., payment_net_amount: _Optional[str] = ..., payment_network_fee: _Optional[str] = ..., payment_network_fee_asset_id: _Optional[str] = ..., available_balance: _Optional[str] = ..., receive_amount: _Optional[str] = ...) -> None: ...

class CreatePayoutResponse(_message.Message):
    __slots__ = ("payout",)
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    payout: Payout
    def __init__(self, payout: _Optional[_Union[Payout, _Mapping]] = ...) -> None: ...

class GetPayoutRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetPayoutResponse(_message.Message):
    __slots__ = ("payout",)
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    payout: Payout
    def __init__(self, payout: _Optional[_Union[Payout, _Mapping]] = ...) -> None: ...

class ListPayoutsRequest(_message.Message):
    __slots__ = ("page", "page_size", "status")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    status: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., status: _Optional[str] = ...) -> None: ...

class ListPayoutsResponse(_message.Message):
    __slots__ = ("payouts", "total", "page", "page_size")
    PAYOUTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    payouts: _containers.RepeatedCompositeFieldContainer[Payout]
    total: int
    page: int
    page_size: int
    def __init__(self, payouts: _Optional[_Iterable[_Union[Payout, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class CancelPayoutRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class CancelPayoutResponse(_message.Message):
    __slots__ = ("payout",)
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    payout: Payout
    def __init__(self, payout: _Optional[_Union[Payout, _Mapping]] = ...) -> None: ...

class ApprovalAction(_message.Message):
    __slots__ = ("id", "action", "key_id", "comment", "created")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    id: str
    action: str
    key_id: str
    comment: str
    created: int
    def __init__(self, id: _Optional[str] = ..., action: _Optional[str] = ..., key_id: _Optional[str] = ..., comment: _Optional[str] = ..., created: _Optional[int] = ...) -> None: ...

class ApprovalDetail(_message.Message):
    __slots__ = ("resource_id", "resource_type", "approval_status", "approvals_required", "approvals_given", "actions", "payout", "refund", "payout_address", "id", "object", "merchant_id", "status", "current_step", "records", "created_at", "updated_at")
    RESOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_GIVEN_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    REFUND_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_STEP_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    resource_id: str
    resource_type: str
    approval_status: str
    approvals_required: int
    approvals_given: int
    actions: _containers.RepeatedCompositeFieldContainer[ApprovalAction]
    payout: Payout
    refund: _refunds_pb2.Refund
    payout_address: _addresses_pb2.MerchantAddress
    id: str
    object: str
    merchant_id: str
    status: str
    current_step: ApprovalStep
    records: _containers.RepeatedCompositeFieldContainer[ApprovalRecord]
    created_at: int
    updated_at: int
    def __init__(self, resource_id: _Optional[str] = ..., resource_type: _Optional[str] = ..., approval_status: _Optional[str] = ..., approvals_required: _Optional[int] = ..., approvals_given: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[ApprovalAction, _Mapping]]] = ..., payout: _Optional[_Union[Payout, _Mapping]] = ..., refund: _Optional[_Union[_refunds_pb2.Refund, _Mapping]] = ..., payout_address: _Optional[_Union[_addresses_pb2.MerchantAddress, _Mapping]] = ..., id: _Optional[str] = ..., object: _Optional[str] = ..., merchant_id: _Optional[str] = ..., status: _Optional[str] = ..., current_step: _Optional[_Union[ApprovalStep, _Mapping]] = ..., records: _Optional[_Iterable[_Union[ApprovalRecord, _Mapping]]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ...) -> None: ...

class ApprovalRecord(_message.Message):
    __slots__ = ("id", "action", "comment", "approver_id", "approver_name", "approver_role", "created_at", "namespace")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    APPROVER_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVER_NAME_FIELD_NUMBER: _ClassVar[int]
    APPROVER_ROLE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    id: str
    action: str
    comment: str
    approver_id: str
    approver_name: str
    approver_role: str
    created_at: int
    namespace: str
    def __init__(self, id: _Optional[str] = ..., action: _Optional[str] = ..., comment: _Optional[str] = ..., approver_id: _Optional[str] = ..., approver_name: _Optional[str] = ..., approver_role: _Optional[str] = ..., created_at: _Optional[int] = ..., namespace: _Optional[str] = ...) -> None: ...

class ApprovalStep(_message.Message):
    __slots__ = ("id", "flow_id", "step_order", "namespace", "roles", "next_on_approve", "next_on_reject", "created_at", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    FLOW_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ORDER_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    NEXT_ON_APPROVE_FIELD_NUMBER: _ClassVar[int]
    NEXT_ON_REJECT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    flow_id: str
    step_order: int
    namespace: str
    roles: _containers.RepeatedScalarFieldContainer[str]
    next_on_approve: int
    next_on_reject: int
    created_at: int
    updated_at: int
    def __init__(self, id: _Optional[str] = ..., flow_id: _Optional[str] = ..., step_order: _Optional[int] = ..., namespace: _Optional[str] = ..., roles: _Optional[_Iterable[str]] = ..., next_on_approve: _Optional[int] = ..., next_on_reject: _Optional[int] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ...) -> None: ...

class GetApprovalDetailRequest(_message.Message):
    __slots__ = ("resource_id", "instance_id", "resource_type")
    RESOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    resource_id: str
    instance_id: str
    resource_type: str
    def __init__(self, resource_id: _Optional[str] = ..., instance_id: _Optional[str] = ..., resource_type: _Optional[str] = ...) -> None: ...

class ListPendingApprovalsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPendingApprovalsResponse(_message.Message):
    __slots__ = ("details",)
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    details: _containers.RepeatedCompositeFieldContainer[ApprovalDetail]
    def __init__(self, details: _Optional[_Iterable[_Union[ApprovalDetail, _Mapping]]] = ...) -> None: ...

class GetApprovalDetailResponse(_message.Message):
    __slots__ = ("detail",)
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    detail: ApprovalDetail
    def __init__(self, detail: _Optional[_Union[ApprovalDetail, _Mapping]] = ...) -> None: ...

class ApprovePayoutRequest(_message.Message):
    __slots__ = ("id", "comment")
    ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    id: str
    comment: str
    def __init__(self, id: _Optional[str] = ..., comment: _Optional[str] = ...) -> None: ...

class ApprovePayoutResponse(_message.Message):
    __slots__ = ("detail",)
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    detail: ApprovalDetail
    def __init__(self, detail: _Optional[_Union[ApprovalDetail, _Mapping]] = ...) -> None: ...

class RejectPayoutRequest(_message.Message):
    __slots__ = ("id", "comment")
    ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    id: str
    comment: str
    def __init__(self, id: _Optional[str] = ..., comment: _Optional[str] = ...) -> None: ...

class RejectPayoutResponse(_message.Message):
    __slots__ = ("detail",)
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    detail: ApprovalDetail
    def __init__(self, detail: _Optional[_Union[ApprovalDetail, _Mapping]] = ...) -> None: ...
