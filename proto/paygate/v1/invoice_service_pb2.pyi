from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from paygate.v1 import invoices_pb2 as _invoices_pb2
from paygate.v1 import payment_intents_pb2 as _payment_intents_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListInvoicesRequest(_message.Message):
    __slots__ = ("customer_id", "subscription_id", "status", "offset", "limit")
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    customer_id: str
    subscription_id: str
    status: _invoices_pb2.InvoiceStatus
    offset: int
    limit: int
    def __init__(self, customer_id: _Optional[str] = ..., subscription_id: _Optional[str] = ..., status: _Optional[_Union[_invoices_pb2.InvoiceStatus, str]] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class ListInvoicesResponse(_message.Message):
    __slots__ = ("offset", "limit", "total", "data")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    offset: int
    limit: int
    total: int
    data: _containers.RepeatedCompositeFieldContainer[_invoices_pb2.Invoice]
    def __init__(self, offset: _Optional[int] = ..., limit: _Optional[int] = ..., total: _Optional[int] = ..., data: _Optional[_Iterable[_Union[_invoices_pb2.Invoice, _Mapping]]] = ...) -> None: ...

class GetInvoiceRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetInvoiceResponse(_message.Message):
    __slots__ = ("invoice",)
    INVOICE_FIELD_NUMBER: _ClassVar[int]
    invoice: _invoices_pb2.Invoice
    def __init__(self, invoice: _Optional[_Union[_invoices_pb2.Invoice, _Mapping]] = ...) -> None: ...

class GetInvoicePaymentIntentRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetInvoicePaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intent",)
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intent: _payment_intents_pb2.PaymentIntent
    def __init__(self, payment_intent: _Optional[_Union[_payment_intents_pb2.PaymentIntent, _Mapping]] = ...) -> None: ...

class SendInvoiceRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class SendInvoiceResponse(_message.Message):
    __slots__ = ("invoice",)
    INVOICE_FIELD_NUMBER: _ClassVar[int]
    invoice: _invoices_pb2.Invoice
    def __init__(self, invoice: _Optional[_Union[_invoices_pb2.Invoice, _Mapping]] = ...) -> None: ...

class VoidInvoiceRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class VoidInvoiceResponse(_message.Message):
    __slots__ = ("invoice",)
    INVOICE_FIELD_NUMBER: _ClassVar[int]
    invoice: _invoices_pb2.Invoice
    def __init__(self, invoice: _Optional[_Union[_invoices_pb2.Invoice, _Mapping]] = ...) -> None: ...

class CreateInvoicePaymentIntentRequest(_message.Message):
    __slots__ = ("invoice_id",)
    INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    invoice_id: str
    def __init__(self, invoice_id: _Optional[str] = ...) -> None: ...

class CreateInvoicePaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intent",)
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intent: _payment_intents_pb2.PaymentIntent
    def __init__(self, payment_intent: _Optional[_Union[_payment_intents_pb2.PaymentIntent, _Mapping]] = ...) -> None: ...
