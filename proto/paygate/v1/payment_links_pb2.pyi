from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from paygate.v1 import money_pb2 as _money_pb2
from paygate.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PaymentLink(_message.Message):
    __slots__ = ("id", "object", "active", "url", "product", "primary_variants", "addon_variants", "price_range", "created_at", "updated_at", "default_variant_id", "variant_config", "return_url")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANTS_FIELD_NUMBER: _ClassVar[int]
    ADDON_VARIANTS_FIELD_NUMBER: _ClassVar[int]
    PRICE_RANGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_CONFIG_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    active: bool
    url: str
    product: PaymentLinkProduct
    primary_variants: _containers.RepeatedCompositeFieldContainer[PrimaryVariant]
    addon_variants: _containers.RepeatedCompositeFieldContainer[AddonVariant]
    price_range: PriceRange
    created_at: int
    updated_at: int
    default_variant_id: str
    variant_config: _struct_pb2.Struct
    return_url: str
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., active: _Optional[bool] = ..., url: _Optional[str] = ..., product: _Optional[_Union[PaymentLinkProduct, _Mapping]] = ..., primary_variants: _Optional[_Iterable[_Union[PrimaryVariant, _Mapping]]] = ..., addon_variants: _Optional[_Iterable[_Union[AddonVariant, _Mapping]]] = ..., price_range: _Optional[_Union[PriceRange, _Mapping]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., default_variant_id: _Optional[str] = ..., variant_config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., return_url: _Optional[str] = ...) -> None: ...

class PaymentLinkProduct(_message.Message):
    __slots__ = ("id", "name", "description", "active")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    active: bool
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., active: _Optional[bool] = ...) -> None: ...

class PaymentLinkVariant(_message.Message):
    __slots__ = ("id", "price")
    ID_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    id: str
    price: _money_pb2.VariantPrice
    def __init__(self, id: _Optional[str] = ..., price: _Optional[_Union[_money_pb2.VariantPrice, _Mapping]] = ...) -> None: ...

class PrimaryVariant(_message.Message):
    __slots__ = ("variant_id", "is_primary", "quantity", "variant")
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    IS_PRIMARY_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    variant_id: str
    is_primary: bool
    quantity: int
    variant: PaymentLinkVariant
    def __init__(self, variant_id: _Optional[str] = ..., is_primary: _Optional[bool] = ..., quantity: _Optional[int] = ..., variant: _Optional[_Union[PaymentLinkVariant, _Mapping]] = ...) -> None: ...

class AddonVariant(_message.Message):
    __slots__ = ("variant_id", "min_quantity", "max_quantity", "variant")
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    MIN_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    MAX_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    variant_id: str
    min_quantity: int
    max_quantity: int
    variant: PaymentLinkVariant
    def __init__(self, variant_id: _Optional[str] = ..., min_quantity: _Optional[int] = ..., max_quantity: _Optional[int] = ..., variant: _Optional[_Union[PaymentLinkVariant, _Mapping]] = ...) -> None: ...

class PriceRange(_message.Message):
    __slots__ = ("min", "max", "currency")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    min: str
    max: str
    currency: str
    def __init__(self, min: _Optional[str] = ..., max: _Optional[str] = ..., currency: _Optional[str] = ...) -> None: ...

class CreatePaymentLinkRequest(_message.Message):
    __slots__ = ("product_id", "default_variant_id", "primary_variant_ids", "addon_variants", "variant_config", "return_url")
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANT_IDS_FIELD_NUMBER: _ClassVar[int]
    ADDON_VARIANTS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_CONFIG_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    product_id: str
    default_variant_id: str
    primary_variant_ids: _containers.RepeatedScalarFieldContainer[str]
    addon_variants: _containers.RepeatedCompositeFieldContainer[AddonVariant]
    variant_config: _struct_pb2.Struct
    return_url: str
    def __init__(self, product_id: _Optional[str] = ..., default_variant_id: _Optional[str] = ..., primary_variant_ids: _Optional[_Iterable[str]] = ..., addon_variants: _Optional[_Iterable[_Union[AddonVariant, _Mapping]]] = ..., variant_config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., return_url: _Optional[str] = ...) -> None: ...

class CreatePaymentLinkResponse(_message.Message):
    __slots__ = ("payment_link",)
    PAYMENT_LINK_FIELD_NUMBER: _ClassVar[int]
    payment_link: PaymentLink
    def __init__(self, payment_link: _Optional[_Union[PaymentLink, _Mapping]] = ...) -> None: ...

class ListPaymentLinksRequest(_message.Message):
    __slots__ = ("page", "page_size", "active", "product")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    active: bool
    product: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., active: _Optional[bool] = ..., product: _Optional[str] = ...) -> None: ...

class ListPaymentLinksResponse(_message.Message):
    __slots__ = ("payment_links", "total", "page", "page_size")
    PAYMENT_LINKS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    payment_links: _containers.RepeatedCompositeFieldContainer[PaymentLink]
    total: int
    page: int
    page_size: int
    def __init__(self, payment_links: _Optional[_Iterable[_Union[PaymentLink, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetPaymentLinkRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetPaymentLinkResponse(_message.Message):
    __slots__ = ("payment_link",)
    PAYMENT_LINK_FIELD_NUMBER: _ClassVar[int]
    payment_link: PaymentLink
    def __init__(self, payment_link: _Optional[_Union[PaymentLink, _Mapping]] = ...) -> None: ...

class UpdatePaymentLinkRequest(_message.Message):
    __slots__ = ("id", "active", "product_id", "default_variant_id", "primary_variant_ids", "addon_variants", "variant_config")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANT_IDS_FIELD_NUMBER: _ClassVar[int]
    ADDON_VARIANTS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_CONFIG_FIELD_NUMBER: _ClassVar[int]
    id: str
    active: bool
    product_id: str
    default_variant_id: str
    primary_variant_ids: _containers.RepeatedScalarFieldContainer[str]
    addon_variants: _containers.RepeatedCompositeFieldContainer[AddonVariant]
    variant_config: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., active: _Optional[bool] = ..., product_id: _Optional[str] = ..., default_variant_id: _Optional[str] = ..., primary_variant_ids: _Optional[_Iterable[str]] = ..., addon_variants: _Optional[_Iterable[_Union[AddonVariant, _Mapping]]] = ..., variant_config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class UpdatePaymentLinkResponse(_message.Message):
    __slots__ = ("id", "active", "url", "product", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    active: bool
    url: str
    product: PaymentLinkProduct
    updated_at: int
    def __init__(self, id: _Optional[str] = ..., active: _Optional[bool] = ..., url: _Optional[str] = ..., product: _Optional[_Union[PaymentLinkProduct, _Mapping]] = ..., updated_at: _Optional[int] = ...) -> None: ...

class DeletePaymentLinkRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeletePaymentLinkResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
