from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SellingPlanGroup(_message.Message):
    __slots__ = ("id", "object", "merchant_id", "name", "description", "options", "status", "product_ids", "selling_plans", "created_at", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_IDS_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLANS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    merchant_id: str
    name: str
    description: str
    options: _containers.RepeatedScalarFieldContainer[str]
    status: str
    product_ids: _containers.RepeatedScalarFieldContainer[str]
    selling_plans: _containers.RepeatedCompositeFieldContainer[GroupSellingPlan]
    created_at: int
    updated_at: int
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., merchant_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., status: _Optional[str] = ..., product_ids: _Optional[_Iterable[str]] = ..., selling_plans: _Optional[_Iterable[_Union[GroupSellingPlan, _Mapping]]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ...) -> None: ...

class GroupSellingPlan(_message.Message):
    __slots__ = ("id", "object", "selling_plan_group_id", "merchant_id", "name", "description", "billing_policy_type", "billing_policy", "pricing_policy", "trial_period_days", "priority", "status", "created_at", "updated_at", "version")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    BILLING_POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    BILLING_POLICY_FIELD_NUMBER: _ClassVar[int]
    PRICING_POLICY_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    selling_plan_group_id: str
    merchant_id: str
    name: str
    description: str
    billing_policy_type: str
    billing_policy: BillingPolicy
    pricing_policy: _containers.RepeatedCompositeFieldContainer[PricingPolicyItem]
    trial_period_days: str
    priority: str
    status: str
    created_at: int
    updated_at: int
    version: int
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., selling_plan_group_id: _Optional[str] = ..., merchant_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., billing_policy_type: _Optional[str] = ..., billing_policy: _Optional[_Union[BillingPolicy, _Mapping]] = ..., pricing_policy: _Optional[_Iterable[_Union[PricingPolicyItem, _Mapping]]] = ..., trial_period_days: _Optional[str] = ..., priority: _Optional[str] = ..., status: _Optional[str] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., version: _Optional[int] = ...) -> None: ...

class BillingPolicy(_message.Message):
    __slots__ = ("interval", "interval_count")
    INTERVAL_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    interval: str
    interval_count: str
    def __init__(self, interval: _Optional[str] = ..., interval_count: _Optional[str] = ...) -> None: ...

class PricingPolicyItem(_message.Message):
    __slots__ = ("policy_type", "adjustment_type", "adjustment_value", "after_cycle")
    POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    ADJUSTMENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ADJUSTMENT_VALUE_FIELD_NUMBER: _ClassVar[int]
    AFTER_CYCLE_FIELD_NUMBER: _ClassVar[int]
    policy_type: str
    adjustment_type: str
    adjustment_value: str
    after_cycle: str
    def __init__(self, policy_type: _Optional[str] = ..., adjustment_type: _Optional[str] = ..., adjustment_value: _Optional[str] = ..., after_cycle: _Optional[str] = ...) -> None: ...

class CreateSellingPlanGroupRequest(_message.Message):
    __slots__ = ("name", "description", "options", "product_ids", "status")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_IDS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    options: _containers.RepeatedScalarFieldContainer[str]
    product_ids: _containers.RepeatedScalarFieldContainer[str]
    status: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., product_ids: _Optional[_Iterable[str]] = ..., status: _Optional[str] = ...) -> None: ...

class CreateSellingPlanGroupResponse(_message.Message):
    __slots__ = ("selling_plan_group",)
    SELLING_PLAN_GROUP_FIELD_NUMBER: _ClassVar[int]
    selling_plan_group: SellingPlanGroup
    def __init__(self, selling_plan_group: _Optional[_Union[SellingPlanGroup, _Mapping]] = ...) -> None: ...

class ListSellingPlanGroupsRequest(_message.Message):
    __slots__ = ("page", "page_size")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class ListSellingPlanGroupsResponse(_message.Message):
    __slots__ = ("data", "total", "offset", "limit")
    DATA_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[SellingPlanGroup]
    total: int
    offset: int
    limit: int
    def __init__(self, data: _Optional[_Iterable[_Union[SellingPlanGroup, _Mapping]]] = ..., total: _Optional[int] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class GetSellingPlanGroupRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetSellingPlanGroupResponse(_message.Message):
    __slots__ = ("selling_plan_group",)
    SELLING_PLAN_GROUP_FIELD_NUMBER: _ClassVar[int]
    selling_plan_group: SellingPlanGroup
    def __init__(self, selling_plan_group: _Optional[_Union[SellingPlanGroup, _Mapping]] = ...) -> None: ...

class UpdateSellingPlanGroupRequest(_message.Message):
    __slots__ = ("id", "update_mask", "name", "description", "options", "status", "product_ids")
    ID_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_IDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    update_mask: _field_mask_pb2.FieldMask
    name: str
    description: str
    options: _containers.RepeatedScalarFieldContainer[str]
    status: str
    product_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., status: _Optional[str] = ..., product_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class UpdateSellingPlanGroupResponse(_message.Message):
    __slots__ = ("selling_plan_group",)
    SELLING_PLAN_GROUP_FIELD_NUMBER: _ClassVar[int]
    selling_plan_group: SellingPlanGroup
    def __init__(self, selling_plan_group: _Optional[_Union[SellingPlanGroup, _Mapping]] = ...) -> None: ...

class DeleteSellingPlanGroupRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteSellingPlanGroupResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreateSellingPlanRequest(_message.Message):
    __slots__ = ("selling_plan_group_id", "name", "description", "billing_policy_type", "billing_policy", "pricing_policy", "trial_period_days", "priority")
    SELLING_PLAN_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    BILLING_POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    BILLING_POLICY_FIELD_NUMBER: _ClassVar[int]
    PRICING_POLICY_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    selling_plan_group_id: str
    name: str
    description: str
    billing_policy_type: str
    billing_policy: BillingPolicy
    pricing_policy: _containers.RepeatedCompositeFieldContainer[PricingPolicyItem]
    trial_period_days: str
    priority: str
    def __init__(self, selling_plan_group_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., billing_policy_type: _Optional[str] = ..., billing_policy: _Optional[_Union[BillingPolicy, _Mapping]] = ..., pricing_policy: _Optional[_Iterable[_Union[PricingPolicyItem, _Mapping]]] = ..., trial_period_days: _Optional[str] = ..., priority: _Optional[str] = ...) -> None: ...

class CreateSellingPlanResponse(_message.Message):
    __slots__ = ("selling_plan",)
    SELLING_PLAN_FIELD_NUMBER: _ClassVar[int]
    selling_plan: GroupSellingPlan
    def __init__(self, selling_plan: _Optional[_Union[GroupSellingPlan, _Mapping]] = ...) -> None: ...

class ListSellingPlansRequest(_message.Message):
    __slots__ = ("page", "page_size", "selling_plan_group_id")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    selling_plan_group_id: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., selling_plan_group_id: _Optional[str] = ...) -> None: ...

class ListSellingPlansResponse(_message.Message):
    __slots__ = ("data", "total", "offset", "limit")
    DATA_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[GroupSellingPlan]
    total: int
    offset: int
    limit: int
    def __init__(self, data: _Optional[_Iterable[_Union[GroupSellingPlan, _Mapping]]] = ..., total: _Optional[int] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class GetSellingPlanRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetSellingPlanResponse(_message.Message):
    __slots__ = ("selling_plan",)
    SELLING_PLAN_FIELD_NUMBER: _ClassVar[int]
    selling_plan: GroupSellingPlan
    def __init__(self, selling_plan: _Optional[_Union[GroupSellingPlan, _Mapping]] = ...) -> None: ...

class UpdateSellingPlanRequest(_message.Message):
    __slots__ = ("id", "update_mask", "name", "description", "billing_policy_type", "billing_policy", "pricing_policy", "trial_period_days", "priority", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    BILLING_POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    BILLING_POLICY_FIELD_NUMBER: _ClassVar[int]
    PRICING_POLICY_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    update_mask: _field_mask_pb2.FieldMask
    name: str
    description: str
    billing_policy_type: str
    billing_policy: BillingPolicy
    pricing_policy: _containers.RepeatedCompositeFieldContainer[PricingPolicyItem]
    trial_period_days: str
    priority: str
    status: str
    def __init__(self, id: _Optional[str] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., billing_policy_type: _Optional[str] = ..., billing_policy: _Optional[_Union[BillingPolicy, _Mapping]] = ..., pricing_policy: _Optional[_Iterable[_Union[PricingPolicyItem, _Mapping]]] = ..., trial_period_days: _Optional[str] = ..., priority: _Optional[str] = ..., status: _Optional[str] = ...) -> None: ...

class UpdateSellingPlanResponse(_message.Message):
    __slots__ = ("selling_plan",)
    SELLING_PLAN_FIELD_NUMBER: _ClassVar[int]
    selling_plan: GroupSellingPlan
    def __init__(self, selling_plan: _Optional[_Union[GroupSellingPlan, _Mapping]] = ...) -> None: ...

class DeleteSellingPlanRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteSellingPlanResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CalculateSellingPlanPriceRequest(_message.Message):
    __slots__ = ("selling_plan_id", "plan_id", "variant_id", "quantity")
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    selling_plan_id: str
    plan_id: str
    variant_id: str
    quantity: int
    def __init__(self, selling_plan_id: _Optional[str] = ..., plan_id: _Optional[str] = ..., variant_id: _Optional[str] = ..., quantity: _Optional[int] = ...) -> None: ...

class CalculateSellingPlanPriceResponse(_message.Message):
    __slots__ = ("selling_plan_id", "variant_id", "quantity", "base_price", "total_cycles", "subtotal_before_policy", "selling_plan_discount", "subtotal_after_policy", "currency", "billing_cycle", "trial_period_days", "pricing_tiers")
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    BASE_PRICE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CYCLES_FIELD_NUMBER: _ClassVar[int]
    SUBTOTAL_BEFORE_POLICY_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_DISCOUNT_FIELD_NUMBER: _ClassVar[int]
    SUBTOTAL_AFTER_POLICY_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    PRICING_TIERS_FIELD_NUMBER: _ClassVar[int]
    selling_plan_id: str
    variant_id: str
    quantity: int
    base_price: str
    total_cycles: int
    subtotal_before_policy: str
    selling_plan_discount: str
    subtotal_after_policy: str
    currency: str
    billing_cycle: str
    trial_period_days: int
    pricing_tiers: _containers.RepeatedCompositeFieldContainer[PriceTier]
    def __init__(self, selling_plan_id: _Optional[str] = ..., variant_id: _Optional[str] = ..., quantity: _Optional[int] = ..., base_price: _Optional[str] = ..., total_cycles: _Optional[int] = ..., subtotal_before_policy: _Optional[str] = ..., selling_plan_discount: _Optional[str] = ..., subtotal_after_policy: _Optional[str] = ..., currency: _Optional[str] = ..., billing_cycle: _Optional[str] = ..., trial_period_days: _Optional[int] = ..., pricing_tiers: _Optional[_Iterable[_Union[PriceTier, _Mapping]]] = ...) -> None: ...

class PriceTier(_message.Message):
    __slots__ = ("policy_type", "after_cycle", "cycle_description", "total_cycles", "base_price", "selling_plan_discount", "subtotal_before_policy", "subtotal_after_policy")
    POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_CYCLE_FIELD_NUMBER: _ClassVar[int]
    CYCLE_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CYCLES_FIELD_NUMBER: _ClassVar[int]
    BASE_PRICE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_DISCOUNT_FIELD_NUMBER: _ClassVar[int]
    SUBTOTAL_BEFORE_POLICY_FIELD_NUMBER: _ClassVar[int]
    SUBTOTAL_AFTER_POLICY_FIELD_NUMBER: _ClassVar[int]
    policy_type: str
    after_cycle: int
    cycle_description: str
    total_cycles: int
    base_price: str
    selling_plan_discount: str
    subtotal_before_policy: str
    subtotal_after_policy: str
    def __init__(self, policy_type: _Optional[str] = ..., after_cycle: _Optional[int] = ..., cycle_description: _Optional[str] = ..., total_cycles: _Optional[int] = ..., base_price: _Optional[str] = ..., selling_plan_discount: _Optional[str] = ..., subtotal_before_policy: _Optional[str] = ..., subtotal_after_policy: _Optional[str] = ...) -> None: ...
