from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
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

class BillingCycle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BILLING_CYCLE_UNSPECIFIED: _ClassVar[BillingCycle]
    BILLING_CYCLE_DAY: _ClassVar[BillingCycle]
    BILLING_CYCLE_WEEK: _ClassVar[BillingCycle]
    BILLING_CYCLE_MONTH: _ClassVar[BillingCycle]
    BILLING_CYCLE_YEAR: _ClassVar[BillingCycle]

class PricingPolicyType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRICING_POLICY_TYPE_UNSPECIFIED: _ClassVar[PricingPolicyType]
    PRICING_POLICY_TYPE_FIXED: _ClassVar[PricingPolicyType]
    PRICING_POLICY_TYPE_RECURRING: _ClassVar[PricingPolicyType]
BILLING_CYCLE_UNSPECIFIED: BillingCycle
BILLING_CYCLE_DAY: BillingCycle
BILLING_CYCLE_WEEK: BillingCycle
BILLING_CYCLE_MONTH: BillingCycle
BILLING_CYCLE_YEAR: BillingCycle
PRICING_POLICY_TYPE_UNSPECIFIED: PricingPolicyType
PRICING_POLICY_TYPE_FIXED: PricingPolicyType
PRICING_POLICY_TYPE_RECURRING: PricingPolicyType

class Product(_message.Message):
    __slots__ = ("id", "object", "name", "description", "active", "default_currency", "fixed_price", "options", "variants", "metadata", "collect_shipping_address", "collect_tax_address", "version", "created_at", "updated_at", "selling_plans", "image_url", "selling_plan_group_ids")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_CURRENCY_FIELD_NUMBER: _ClassVar[int]
    FIXED_PRICE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    COLLECT_SHIPPING_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    COLLECT_TAX_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLANS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_GROUP_IDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    name: str
    description: str
    active: bool
    default_currency: str
    fixed_price: _money_pb2.Price
    options: _containers.RepeatedCompositeFieldContainer[ProductOption]
    variants: _containers.RepeatedCompositeFieldContainer[Variant]
    metadata: _struct_pb2.Struct
    collect_shipping_address: bool
    collect_tax_address: bool
    version: int
    created_at: int
    updated_at: int
    selling_plans: _containers.RepeatedCompositeFieldContainer[SellingPlan]
    image_url: str
    selling_plan_group_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., active: _Optional[bool] = ..., default_currency: _Optional[str] = ..., fixed_price: _Optional[_Union[_money_pb2.Price, _Mapping]] = ..., options: _Optional[_Iterable[_Union[ProductOption, _Mapping]]] = ..., variants: _Optional[_Iterable[_Union[Variant, _Mapping]]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., collect_shipping_address: _Optional[bool] = ..., collect_tax_address: _Optional[bool] = ..., version: _Optional[int] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., selling_plans: _Optional[_Iterable[_Union[SellingPlan, _Mapping]]] = ..., image_url: _Optional[str] = ..., selling_plan_group_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ProductOption(_message.Message):
    __slots__ = ("name", "values")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    name: str
    values: _containers.RepeatedCompositeFieldContainer[OptionValue]
    def __init__(self, name: _Optional[str] = ..., values: _Optional[_Iterable[_Union[OptionValue, _Mapping]]] = ...) -> None: ...

class OptionValue(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class Variant(_message.Message):
    __slots__ = ("id", "option_values", "price", "active", "inventory_quantity", "title", "sku")
    class OptionValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    OPTION_VALUES_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    INVENTORY_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SKU_FIELD_NUMBER: _ClassVar[int]
    id: str
    option_values: _containers.ScalarMap[str, str]
    price: _money_pb2.VariantPrice
    active: bool
    inventory_quantity: int
    title: str
    sku: str
    def __init__(self, id: _Optional[str] = ..., option_values: _Optional[_Mapping[str, str]] = ..., price: _Optional[_Union[_money_pb2.VariantPrice, _Mapping]] = ..., active: _Optional[bool] = ..., inventory_quantity: _Optional[int] = ..., title: _Optional[str] = ..., sku: _Optional[str] = ...) -> None: ...

class SellingPlan(_message.Message):
    __slots__ = ("id", "name", "description", "billing_cycle", "billing_cycle_interval", "trial_period_days", "pricing_policies")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    PRICING_POLICIES_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    billing_cycle: BillingCycle
    billing_cycle_interval: int
    trial_period_days: int
    pricing_policies: _containers.RepeatedCompositeFieldContainer[PricingPolicy]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., billing_cycle: _Optional[_Union[BillingCycle, str]] = ..., billing_cycle_interval: _Optional[int] = ..., trial_period_days: _Optional[int] = ..., pricing_policies: _Optional[_Iterable[_Union[PricingPolicy, _Mapping]]] = ...) -> None: ...

class PricingPolicy(_message.Message):
    __slots__ = ("policy_type", "after_cycle", "discount_percentage")
    POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_CYCLE_FIELD_NUMBER: _ClassVar[int]
    DISCOUNT_PERCENTAGE_FIELD_NUMBER: _ClassVar[int]
    policy_type: PricingPolicyType
    after_cycle: int
    discount_percentage: str
    def __init__(self, policy_type: _Optional[_Union[PricingPolicyType, str]] = ..., after_cycle: _Optional[int] = ..., discount_percentage: _Optional[str] = ...) -> None: ...

class CreateProductRequest(_message.Message):
    __slots__ = ("name", "default_currency", "description", "active", "fixed_price", "options", "variants", "metadata", "collect_shipping_address", "collect_tax_address", "selling_plans", "image_url", "selling_plan_group_ids")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    FIXED_PRICE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    COLLECT_SHIPPING_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    COLLECT_TAX_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLANS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_GROUP_IDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    default_currency: str
    description: str
    active: bool
    fixed_price: _money_pb2.Price
    options: _containers.RepeatedCompositeFieldContainer[ProductOption]
    variants: _containers.RepeatedCompositeFieldContainer[Variant]
    metadata: _struct_pb2.Struct
    collect_shipping_address: bool
    collect_tax_address: bool
    selling_plans: _containers.RepeatedCompositeFieldContainer[SellingPlan]
    image_url: str
    selling_plan_group_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., default_currency: _Optional[str] = ..., description: _Optional[str] = ..., active: _Optional[bool] = ..., fixed_price: _Optional[_Union[_money_pb2.Price, _Mapping]] = ..., options: _Optional[_Iterable[_Union[ProductOption, _Mapping]]] = ..., variants: _Optional[_Iterable[_Union[Variant, _Mapping]]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., collect_shipping_address: _Optional[bool] = ..., collect_tax_address: _Optional[bool] = ..., selling_plans: _Optional[_Iterable[_Union[SellingPlan, _Mapping]]] = ..., image_url: _Optional[str] = ..., selling_plan_group_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateProductResponse(_message.Message):
    __slots__ = ("product",)
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    product: Product
    def __init__(self, product: _Optional[_Union[Product, _Mapping]] = ...) -> None: ...

class ListProductsRequest(_message.Message):
    __slots__ = ("page", "page_size", "active")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    active: bool
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., active: _Optional[bool] = ...) -> None: ...

class ListProductsResponse(_message.Message):
    __slots__ = ("products", "total", "page", "page_size")
    PRODUCTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    products: _containers.RepeatedCompositeFieldContainer[Product]
    total: int
    page: int
    page_size: int
    def __init__(self, products: _Optional[_Iterable[_Union[Product, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetProductRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetProductResponse(_message.Message):
    __slots__ = ("product",)
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    product: Product
    def __init__(self, product: _Optional[_Union[Product, _Mapping]] = ...) -> None: ...

class UpdateProductRequest(_message.Message):
    __slots__ = ("id", "update_mask", "name", "default_currency", "description", "active", "fixed_price", "options", "variants", "metadata", "collect_shipping_address", "collect_tax_address", "selling_plans", "image_url", "selling_plan_group_ids")
    ID_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    FIXED_PRICE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    COLLECT_SHIPPING_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    COLLECT_TAX_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLANS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_GROUP_IDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    update_mask: _field_mask_pb2.FieldMask
    name: str
    default_currency: str
    description: str
    active: bool
    fixed_price: _money_pb2.Price
    options: _containers.RepeatedCompositeFieldContainer[ProductOption]
    variants: _containers.RepeatedCompositeFieldContainer[Variant]
    metadata: _struct_pb2.Struct
    collect_shipping_address: bool
    collect_tax_address: bool
    selling_plans: _containers.RepeatedCompositeFieldContainer[SellingPlan]
    image_url: str
    selling_plan_group_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., name: _Optional[str] = ..., default_currency: _Optional[str] = ..., description: _Optional[str] = ..., active: _Optional[bool] = ..., fixed_price: _Optional[_Union[_money_pb2.Price, _Mapping]] = ..., options: _Optional[_Iterable[_Union[ProductOption, _Mapping]]] = ..., variants: _Optional[_Iterable[_Union[Variant, _Mapping]]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., collect_shipping_address: _Optional[bool] = ..., collect_tax_address: _Optional[bool] = ..., selling_plans: _Optional[_Iterable[_Union[SellingPlan, _Mapping]]] = ..., image_url: _Optional[str] = ..., selling_plan_group_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class UpdateProductResponse(_message.Message):
    __slots__ = ("product",)
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    product: Product
    def __init__(self, product: _Optional[_Union[Product, _Mapping]] = ...) -> None: ...

class DeleteProductRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteProductResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
