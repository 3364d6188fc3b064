from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from paygate.v1 import money_pb2 as _money_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Order(_message.Message):
    __slots__ = ("id", "object", "order_number", "external_id", "customer", "shipping_address", "tax_region", "items", "total_amount", "status", "payment_method", "created_at", "updated_at", "payment_intent_id", "payment_link_id", "livemode")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    ORDER_NUMBER_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    SHIPPING_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    TAX_REGION_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_INTENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_ID_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    order_number: str
    external_id: str
    customer: OrderCustomer
    shipping_address: _money_pb2.Address
    tax_region: OrderTaxRegion
    items: _containers.RepeatedCompositeFieldContainer[OrderItem]
    total_amount: _money_pb2.AssetAmount
    status: str
    payment_method: str
    created_at: int
    updated_at: int
    payment_intent_id: str
    payment_link_id: str
    livemode: bool
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., order_number: _Optional[str] = ..., external_id: _Optional[str] = ..., customer: _Optional[_Union[OrderCustomer, _Mapping]] = ..., shipping_address: _Optional[_Union[_money_pb2.Address, _Mapping]] = ..., tax_region: _Optional[_Union[OrderTaxRegion, _Mapping]] = ..., items: _Optional[_Iterable[_Union[OrderItem, _Mapping]]] = ..., total_amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., status: _Optional[str] = ..., payment_method: _Optional[str] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., payment_intent_id: _Optional[str] = ..., payment_link_id: _Optional[str] = ..., livemode: _Optional[bool] = ...) -> None: ...

class OrderItem(_message.Message):
    __slots__ = ("product_id", "product_name", "product_description", "variant_id", "variant_title", "quantity", "unit_price", "total", "selling_plan_id")
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_NAME_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_TITLE_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    UNIT_PRICE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    product_id: str
    product_name: str
    product_description: str
    variant_id: str
    variant_title: str
    quantity: int
    unit_price: _money_pb2.AssetAmount
    total: _money_pb2.AssetAmount
    selling_plan_id: str
    def __init__(self, product_id: _Optional[str] = ..., product_name: _Optional[str] = ..., product_description: _Optional[str] = ..., variant_id: _Optional[str] = ..., variant_title: _Optional[str] = ..., quantity: _Optional[int] = ..., unit_price: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., total: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., selling_plan_id: _Optional[str] = ...) -> None: ...

class OrderCustomer(_message.Message):
    __slots__ = ("id", "name", "email", "phone")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    email: str
    phone: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ...) -> None: ...

class OrderTaxRegion(_message.Message):
    __slots__ = ("country", "state")
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    country: str
    state: str
    def __init__(self, country: _Optional[str] = ..., state: _Optional[str] = ...) -> None: ...

class ListOrdersRequest(_message.Message):
    __slots__ = ("page", "page_size", "status")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    status: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., status: _Optional[str] = ...) -> None: ...

class ListOrdersResponse(_message.Message):
    __slots__ = ("orders", "total", "page", "page_size")
    ORDERS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    orders: _containers.RepeatedCompositeFieldContainer[Order]
    total: int
    page: int
    page_size: int
    def __init__(self, orders: _Optional[_Iterable[_Union[Order, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetOrderRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetOrderResponse(_message.Message):
    __slots__ = ("order",)
    ORDER_FIELD_NUMBER: _ClassVar[int]
    order: Order
    def __init__(self, order: _Optional[_Union[Order, _Mapping]] = ...) -> None: ...
