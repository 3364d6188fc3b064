from google.protobuf import struct_pb2 as _struct_pb2
from paygate.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InvoiceStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INVOICE_STATUS_UNSPECIFIED: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_DRAFT: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_OPEN: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_PAID: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_VOID: _ClassVar[InvoiceStatus]
    INVOICE_STATUS_UNCOLLECTIBLE: _ClassVar[InvoiceStatus]

class BillingReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BILLING_REASON_UNSPECIFIED: _ClassVar[BillingReason]
    BILLING_REASON_SUBSCRIPTION_CREATE: _ClassVar[BillingReason]
    BILLING_REASON_SUBSCRIPTION_CYCLE: _ClassVar[BillingReason]
    BILLING_REASON_SUBSCRIPTION_UPDATE: _ClassVar[BillingReason]
    BILLING_REASON_MANUAL: _ClassVar[BillingReason]
INVOICE_STATUS_UNSPECIFIED: InvoiceStatus
INVOICE_STATUS_DRAFT: InvoiceStatus
INVOICE_STATUS_OPEN: InvoiceStatus
INVOICE_STATUS_PAID: InvoiceStatus
INVOICE_STATUS_VOID: InvoiceStatus
INVOICE_STATUS_UNCOLLECTIBLE: InvoiceStatus
BILLING_REASON_UNSPECIFIED: BillingReason
BILLING_REASON_SUBSCRIPTION_CREATE: BillingReason
BILLING_REASON_SUBSCRIPTION_CYCLE: BillingReason
BILLING_REASON_SUBSCRIPTION_UPDATE: BillingReason
BILLING_REASON_MANUAL: BillingReason

class InvoiceLine(_message.Message):
    __slots__ = ("description", "product_id", "variant_id", "product_name", "variant_title", "quantity", "unit_amount", "amount", "currency", "period_start", "period_end", "proration")
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_TITLE_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    UNIT_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    PERIOD_START_FIELD_NUMBER: _ClassVar[int]
    PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    PRORATION_FIELD_NUMBER: _ClassVar[int]
    description: str
    product_id: str
    variant_id: str
    product_name: str
    variant_title: str
    quantity: int
    unit_amount: str
    amount: str
    currency: str
    period_start: int
    period_end: int
    proration: bool
    def __init__(self, description: _Optional[str] = ..., product_id: _Optional[str] = ..., variant_id: _Optional[str] = ..., product_name: _Optional[str] = ..., variant_title: _Optional[str] = ..., quantity: _Optional[int] = ..., unit_amount: _Optional[str] = ..., amount: _Optional[str] = ..., currency: _Optional[str] = ..., period_start: _Optional[int] = ..., period_end: _Optional[int] = ..., proration: _Optional[bool] = ...) -> None: ...

class Invoice(_message.Message):
    __slots__ = ("id", "object", "merchant_id", "merchant_name", "subscription_id", "payment_intent_id", "customer_id", "customer_email", "customer_name", "amount", "amount_paid", "currency", "status", "billing_reason", "cycle_number", "period_start", "period_end", "attempt_count", "next_payment_attempt", "due_date", "paid_at", "voided_at", "payment_url", "lines", "metadata", "external_id", "created_at", "updated_at", "version", "livemode")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_NAME_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_INTENT_ID_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_NAME_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_PAID_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BILLING_REASON_FIELD_NUMBER: _ClassVar[int]
    CYCLE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PERIOD_START_FIELD_NUMBER: _ClassVar[int]
    PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_COUNT_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAYMENT_ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    DUE_DATE_FIELD_NUMBER: _ClassVar[int]
    PAID_AT_FIELD_NUMBER: _ClassVar[int]
    VOIDED_AT_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_URL_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    merchant_id: str
    merchant_name: str
    subscription_id: str
    payment_intent_id: str
    customer_id: str
    customer_email: str
    customer_name: str
    amount: str
    amount_paid: str
    currency: str
    status: InvoiceStatus
    billing_reason: BillingReason
    cycle_number: int
    period_start: int
    period_end: int
    attempt_count: int
    next_payment_attempt: int
    due_date: int
    paid_at: int
    voided_at: int
    payment_url: str
    lines: _containers.RepeatedCompositeFieldContainer[InvoiceLine]
    metadata: _struct_pb2.Struct
    external_id: str
    created_at: int
    updated_at: int
    version: int
    livemode: bool
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., merchant_id: _Optional[str] = ..., merchant_name: _Optional[str] = ..., subscription_id: _Optional[str] = ..., payment_intent_id: _Optional[str] = ..., customer_id: _Optional[str] = ..., customer_email: _Optional[str] = ..., customer_name: _Optional[str] = ..., amount: _Optional[str] = ..., amount_paid: _Optional[str] = ..., currency: _Optional[str] = ..., status: _Optional[_Union[InvoiceStatus, str]] = ..., billing_reason: _Optional[_Union[BillingReason, str]] = ..., cycle_number: _Optional[int] = ..., period_start: _Optional[int] = ..., period_end: _Optional[int] = ..., attempt_count: _Optional[int] = ..., next_payment_attempt: _Optional[int] = ..., due_date: _Optional[int] = ..., paid_at: _Optional[int] = ..., voided_at: _Optional[int] = ..., payment_url: _Optional[str] = ..., lines: _Optional[_Iterable[_Union[InvoiceLine, _Mapping]]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., external_id: _Optional[str] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., version: _Optional[int] = ..., livemode: _Optional[bool] = ...) -> None: ...
