from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from paygate.v1 import options_pb2 as _options_pb2
from paygate.v1 import products_pb2 as _products_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SubscriptionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBSCRIPTION_STATUS_UNSPECIFIED: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_INCOMPLETE: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_ACTIVE: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_PAUSED: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_PAST_DUE: _ClassVar[SubscriptionStatus]
    SUBSCRIPTION_STATUS_CANCELED: _ClassVar[SubscriptionStatus]

class PauseCollectionBehavior(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAUSE_COLLECTION_BEHAVIOR_UNSPECIFIED: _ClassVar[PauseCollectionBehavior]
    PAUSE_COLLECTION_BEHAVIOR_VOID: _ClassVar[PauseCollectionBehavior]
    PAUSE_COLLECTION_BEHAVIOR_KEEP_AS_DRAFT: _ClassVar[PauseCollectionBehavior]
    PAUSE_COLLECTION_BEHAVIOR_MARK_UNCOLLECTIBLE: _ClassVar[PauseCollectionBehavior]
    PAUSE_COLLECTION_BEHAVIOR_FREE: _ClassVar[PauseCollectionBehavior]

class CollectionMethod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COLLECTION_METHOD_UNSPECIFIED: _ClassVar[CollectionMethod]
    COLLECTION_METHOD_CHARGE_AUTOMATICALLY: _ClassVar[CollectionMethod]
    COLLECTION_METHOD_SEND_INVOICE: _ClassVar[CollectionMethod]

class ProrationBehavior(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRORATION_BEHAVIOR_UNSPECIFIED: _ClassVar[ProrationBehavior]
    PRORATION_BEHAVIOR_ALWAYS_INVOICE: _ClassVar[ProrationBehavior]
    PRORATION_BEHAVIOR_CREATE_PRORATIONS: _ClassVar[ProrationBehavior]
    PRORATION_BEHAVIOR_NONE: _ClassVar[ProrationBehavior]

class BillingCycleAnchor(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BILLING_CYCLE_ANCHOR_UNSPECIFIED: _ClassVar[BillingCycleAnchor]
    BILLING_CYCLE_ANCHOR_NOW: _ClassVar[BillingCycleAnchor]
    BILLING_CYCLE_ANCHOR_UNCHANGED: _ClassVar[BillingCycleAnchor]

class PlanChangeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAN_CHANGE_TYPE_UNSPECIFIED: _ClassVar[PlanChangeType]
    PLAN_CHANGE_TYPE_UPGRADE: _ClassVar[PlanChangeType]
    PLAN_CHANGE_TYPE_DOWNGRADE: _ClassVar[PlanChangeType]
    PLAN_CHANGE_TYPE_NONE: _ClassVar[PlanChangeType]
SUBSCRIPTION_STATUS_UNSPECIFIED: SubscriptionStatus
SUBSCRIPTION_STATUS_INCOMPLETE: SubscriptionStatus
SUBSCRIPTION_STATUS_ACTIVE: SubscriptionStatus
SUBSCRIPTION_STATUS_PAUSED: SubscriptionStatus
SUBSCRIPTION_STATUS_PAST_DUE: SubscriptionStatus
SUBSCRIPTION_STATUS_CANCELED: SubscriptionStatus
PAUSE_COLLECTION_BEHAVIOR_UNSPECIFIED: PauseCollectionBehavior
PAUSE_COLLECTION_BEHAVIOR_VOID: PauseCollectionBehavior
PAUSE_COLLECTION_BEHAVIOR_KEEP_AS_DRAFT: PauseCollectionBehavior
PAUSE_COLLECTION_BEHAVIOR_MARK_UNCOLLECTIBLE: PauseCollectionBehavior
PAUSE_COLLECTION_BEHAVIOR_FREE: PauseCollectionBehavior
COLLECTION_METHOD_UNSPECIFIED: CollectionMethod
COLLECTION_METHOD_CHARGE_AUTOMATICALLY: CollectionMethod
COLLECTION_METHOD_SEND_INVOICE: CollectionMethod
PRORATION_BEHAVIOR_UNSPECIFIED: ProrationBehavior
PRORATION_BEHAVIOR_ALWAYS_INVOICE: ProrationBehavior
PRORATION_BEHAVIOR_CREATE_PRORATIONS: ProrationBehavior
PRORATION_BEHAVIOR_NONE: ProrationBehavior
BILLING_CYCLE_ANCHOR_UNSPECIFIED: BillingCycleAnchor
BILLING_CYCLE_ANCHOR_NOW: BillingCycleAnchor
BILLING_CYCLE_ANCHOR_UNCHANGED: BillingCycleAnchor
PLAN_CHANGE_TYPE_UNSPECIFIED: PlanChangeType
PLAN_CHANGE_TYPE_UPGRADE: PlanChangeType
PLAN_CHANGE_TYPE_DOWNGRADE: PlanChangeType
PLAN_CHANGE_TYPE_NONE: PlanChangeType

class Subscription(_message.Message):
    __slots__ = ("id", "merchant_id", "merchant_name", "customer_id", "customer_name", "customer_email", "product_id", "product_name", "product_description", "product_image_url", "variant_id", "variant_title", "variant_option_values", "variant_price", "selling_plan_id", "selling_plan_name", "selling_plan_description", "selling_plan_pricing", "status", "collection_method", "default_payment_method_id", "default_payment_method_type", "default_provider_type", "payment_method_brand", "payment_method_last4", "external_id", "metadata", "created_at", "updated_at", "billing_cycle_anchor", "current_period_start", "current_period_end", "trial_start", "trial_end", "canceled_at", "cancel_reason", "cancel_at_period_end", "paused_at", "pause_collection_behavior", "resumes_at", "latest_invoice_id", "current_cycle_number", "current_pricing_tier", "upcoming_pricing_tier", "next_charge_amount", "next_charge_amount_display", "payment_required", "payment_url", "payment_expires_at", "hours_since_creation", "quantity", "livemode", "pending_update", "test_clock")
    class VariantOptionValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_NAME_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_NAME_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_NAME_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_TITLE_FIELD_NUMBER: _ClassVar[int]
    VARIANT_OPTION_VALUES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_PRICE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_NAME_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_PRICING_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_METHOD_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PAYMENT_METHOD_ID_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PROVIDER_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_BRAND_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_LAST4_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_ANCHOR_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PERIOD_START_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    TRIAL_START_FIELD_NUMBER: _ClassVar[int]
    TRIAL_END_FIELD_NUMBER: _ClassVar[int]
    CANCELED_AT_FIELD_NUMBER: _ClassVar[int]
    CANCEL_REASON_FIELD_NUMBER: _ClassVar[int]
    CANCEL_AT_PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    PAUSED_AT_FIELD_NUMBER: _ClassVar[int]
    PAUSE_COLLECTION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    RESUMES_AT_FIELD_NUMBER: _ClassVar[int]
    LATEST_INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    CURRENT_CYCLE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PRICING_TIER_FIELD_NUMBER: _ClassVar[int]
    UPCOMING_PRICING_TIER_FIELD_NUMBER: _ClassVar[int]
    NEXT_CHARGE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    NEXT_CHARGE_AMOUNT_DISPLAY_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_URL_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    HOURS_SINCE_CREATION_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    PENDING_UPDATE_FIELD_NUMBER: _ClassVar[int]
    TEST_CLOCK_FIELD_NUMBER: _ClassVar[int]
    id: str
    merchant_id: str
    merchant_name: str
    customer_id: str
    customer_name: str
    customer_email: str
    product_id: str
    product_name: str
    product_description: str
    product_image_url: str
    variant_id: str
    variant_title: str
    variant_option_values: _containers.ScalarMap[str, str]
    variant_price: str
    selling_plan_id: str
    selling_plan_name: str
    selling_plan_description: str
    selling_plan_pricing: SellingPlanPricing
    status: SubscriptionStatus
    collection_method: CollectionMethod
    default_payment_method_id: str
    default_payment_method_type: str
    default_provider_type: str
    payment_method_brand: str
    payment_method_last4: str
    external_id: str
    metadata: _struct_pb2.Struct
    created_at: int
    updated_at: int
    billing_cycle_anchor: int
    current_period_start: int
    current_period_end: int
    trial_start: int
    trial_end: int
    canceled_at: int
    cancel_reason: str
    cancel_at_period_end: bool
    paused_at: int
    pause_collection_behavior: PauseCollectionBehavior
    resumes_at: int
    latest_invoice_id: str
    current_cycle_number: int
    current_pricing_tier: PricingTierView
    upcoming_pricing_tier: PricingTierView
    next_charge_amount: str
    next_charge_amount_display: str
    payment_required: bool
    payment_url: str
    payment_expires_at: int
    hours_since_creation: int
    quantity: int
    livemode: bool
    pending_update: PendingUpdate
    test_clock: TestClock
    def __init__(self, id: _Optional[str] = ..., merchant_id: _Optional[str] = ..., merchant_name: _Optional[str] = ..., customer_id: _Optional[str] = ..., customer_name: _Optional[str] = ..., customer_email: _Optional[str] = ..., product_id: _Optional[str] = ..., product_name: _Optional[str] = ..., product_description: _Optional[str] = ..., product_image_url: _Optional[str] = ..., variant_id: _Optional[str] = ..., variant_title: _Optional[str] = ..., variant_option_values: _Optional[_Mapping[str, str]] = ..., variant_price: _Optional[str] = ..., selling_plan_id: _Optional[str] = ..., selling_plan_name: _Optional[str] = ..., selling_plan_description: _Optional[str] = ..., selling_plan_pricing: _Optional[_Union[SellingPlanPricing, _Mapping]] = ..., status: _Optional[_Union[SubscriptionStatus, str]] = ..., collection_method: _Optional[_Union[CollectionMethod, str]] = ..., default_payment_method_id: _Optional[str] = ..., default_payment_method_type: _Optional[str] = ..., default_provider_type: _Optional[str] = ..., payment_method_brand: _Optional[str] = ..., payment_method_last4: _Optional[str] = ..., external_id: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., billing_cycle_anchor: _Optional[int] = ..., current_period_start: _Optional[int] = ..., current_period_end: _Optional[int] = ..., trial_start: _Optional[int] = ..., trial_end: _Optional[int] = ..., canceled_at: _Optional[int] = ..., cancel_reason: _Optional[str] = ..., cancel_at_period_end: _Optional[bool] = ..., paused_at: _Optional[int] = ..., pause_collection_behavior: _Optional[_Union[PauseCollectionBehavior, str]] = ..., resumes_at: _Optional[int] = ..., latest_invoice_id: _Optional[str] = ..., current_cycle_number: _Optional[int] = ..., current_pricing_tier: _Optional[_Union[PricingTierView, _Mapping]] = ..., upcoming_pricing_tier: _Optional[_Union[PricingTierView, _Mapping]] = ..., next_charge_amount: _Optional[str] = ..., next_charge_amount_display: _Optional[str] = ..., payment_required: _Optional[bool] = ..., payment_url: _Optional[str] = ..., payment_expires_at: _Optional[int] = ..., hours_since_creation: _Optional[int] = ..., quantity: _Optional[int] = ..., livemode: _Optional[bool] = ..., pending_update: _Optional[_Union[PendingUpdate, _Mapping]] = ..., test_clock: _Optional[_Union[TestClock, _Mapping]] = ...) -> None: ...

class SellingPlanPricing(_message.Message):
    __slots__ = ("selling_plan_id", "selling_plan_name", "billing_cycle", "currency", "trial_period_days", "pricing_tiers", "billing_cycle_interval")
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_NAME_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    PRICING_TIERS_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    selling_plan_id: str
    selling_plan_name: str
    billing_cycle: _products_pb2.BillingCycle
    currency: str
    trial_period_days: int
    pricing_tiers: _containers.RepeatedCompositeFieldContainer[PricingTier]
    billing_cycle_interval: int
    def __init__(self, selling_plan_id: _Optional[str] = ..., selling_plan_name: _Optional[str] = ..., billing_cycle: _Optional[_Union[_products_pb2.BillingCycle, str]] = ..., currency: _Optional[str] = ..., trial_period_days: _Optional[int] = ..., pricing_tiers: _Optional[_Iterable[_Union[PricingTier, _Mapping]]] = ..., billing_cycle_interval: _Optional[int] = ...) -> None: ...

class PricingTier(_message.Message):
    __slots__ = ("policy_type", "after_cycle", "cycle_description", "total_cycles", "base_price", "selling_plan_discount", "subtotal_before_policy", "subtotal_after_policy")
    POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_CYCLE_FIELD_NUMBER: _ClassVar[int]
    CYCLE_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CYCLES_FIELD_NUMBER: _ClassVar[int]
    BASE_PRICE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_DISCOUNT_FIELD_NUMBER: _ClassVar[int]
    SUBTOTAL_BEFORE_POLICY_FIELD_NUMBER: _ClassVar[int]
    SUBTOTAL_AFTER_POLICY_FIELD_NUMBER: _ClassVar[int]
    policy_type: _products_pb2.PricingPolicyType
    after_cycle: int
    cycle_description: str
    total_cycles: int
    base_price: str
    selling_plan_discount: str
    subtotal_before_policy: str
    subtotal_after_policy: str
    def __init__(self, policy_type: _Optional[_Union[_products_pb2.PricingPolicyType, str]] = ..., after_cycle: _Optional[int] = ..., cycle_description: _Optional[str] = ..., total_cycles: _Optional[int] = ..., base_price: _Optional[str] = ..., selling_plan_discount: _Optional[str] = ..., subtotal_before_policy: _Optional[str] = ..., subtotal_after_policy: _Optional[str] = ...) -> None: ...

class PricingTierView(_message.Message):
    __slots__ = ("policy_type", "cycle_number", "cycle_description", "billing_cycle", "billing_cycle_interval", "currency", "base_price", "selling_plan_discount", "discount_percentage", "final_price")
    POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    CYCLE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CYCLE_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    BASE_PRICE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_DISCOUNT_FIELD_NUMBER: _ClassVar[int]
    DISCOUNT_PERCENTAGE_FIELD_NUMBER: _ClassVar[int]
    FINAL_PRICE_FIELD_NUMBER: _ClassVar[int]
    policy_type: _products_pb2.PricingPolicyType
    cycle_number: int
    cycle_description: str
    billing_cycle: _products_pb2.BillingCycle
    billing_cycle_interval: int
    currency: str
    base_price: str
    selling_plan_discount: str
    discount_percentage: str
    final_price: str
    def __init__(self, policy_type: _Optional[_Union[_products_pb2.PricingPolicyType, str]] = ..., cycle_number: _Optional[int] = ..., cycle_description: _Optional[str] = ..., billing_cycle: _Optional[_Union[_products_pb2.BillingCycle, str]] = ..., billing_cycle_interval: _Optional[int] = ..., currency: _Optional[str] = ..., base_price: _Optional[str] = ..., selling_plan_discount: _Optional[str] = ..., discount_percentage: _Optional[str] = ..., final_price: _Optional[str] = ...) -> None: ...

class PendingUpdate(_message.Message):
    __slots__ = ("target_selling_plan_id", "target_selling_plan_name", "target_variant_id", "target_quantity", "target_variant_title", "target_variant_price", "target_variant_option_values", "next_charge_amount", "change_type", "effective_date", "proration_behavior", "billing_cycle_anchor", "proration_date", "metadata", "scheduled_at")
    class TargetVariantOptionValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TARGET_SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_SELLING_PLAN_NAME_FIELD_NUMBER: _ClassVar[int]
    TARGET_VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    TARGET_VARIANT_TITLE_FIELD_NUMBER: _ClassVar[int]
    TARGET_VARIANT_PRICE_FIELD_NUMBER: _ClassVar[int]
    TARGET_VARIANT_OPTION_VALUES_FIELD_NUMBER: _ClassVar[int]
    NEXT_CHARGE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CHANGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_DATE_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_ANCHOR_FIELD_NUMBER: _ClassVar[int]
    PRORATION_DATE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_AT_FIELD_NUMBER: _ClassVar[int]
    target_selling_plan_id: str
    target_selling_plan_name: str
    target_variant_id: str
    target_quantity: int
    target_variant_title: str
    target_variant_price: str
    target_variant_option_values: _containers.ScalarMap[str, str]
    next_charge_amount: str
    change_type: PlanChangeType
    effective_date: int
    proration_behavior: ProrationBehavior
    billing_cycle_anchor: BillingCycleAnchor
    proration_date: int
    metadata: _struct_pb2.Struct
    scheduled_at: int
    def __init__(self, target_selling_plan_id: _Optional[str] = ..., target_selling_plan_name: _Optional[str] = ..., target_variant_id: _Optional[str] = ..., target_quantity: _Optional[int] = ..., target_variant_title: _Optional[str] = ..., target_variant_price: _Optional[str] = ..., target_variant_option_values: _Optional[_Mapping[str, str]] = ..., next_charge_amount: _Optional[str] = ..., change_type: _Optional[_Union[PlanChangeType, str]] = ..., effective_date: _Optional[int] = ..., proration_behavior: _Optional[_Union[ProrationBehavior, str]] = ..., billing_cycle_anchor: _Optional[_Union[BillingCycleAnchor, str]] = ..., proration_date: _Optional[int] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., scheduled_at: _Optional[int] = ...) -> None: ...

class TestClock(_message.Message):
    __slots__ = ("frozen_time",)
    FROZEN_TIME_FIELD_NUMBER: _ClassVar[int]
    frozen_time: int
    def __init__(self, frozen_time: _Optional[int] = ...) -> None: ...

class ListSubscriptionsRequest(_message.Message):
    __slots__ = ("customer_id", "status", "external_id", "offset", "limit")
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    customer_id: str
    status: SubscriptionStatus
    external_id: str
    offset: int
    limit: int
    def __init__(self, customer_id: _Optional[str] = ..., status: _Optional[_Union[SubscriptionStatus, str]] = ..., external_id: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class ListSubscriptionsResponse(_message.Message):
    __slots__ = ("offset", "limit", "total", "data")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    offset: int
    limit: int
    total: int
    data: _containers.RepeatedCompositeFieldContainer[Subscription]
    def __init__(self, offset: _Optional[int] = ..., limit: _Optional[int] = ..., total: _Optional[int] = ..., data: _Optional[_Iterable[_Union[Subscription, _Mapping]]] = ...) -> None: ...

class GetSubscriptionRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: Subscription
    def __init__(self, subscription: _Optional[_Union[Subscription, _Mapping]] = ...) -> None: ...

class CancelSubscriptionRequest(_message.Message):
    __slots__ = ("id", "cancel_at_period_end", "cancel_reason")
    ID_FIELD_NUMBER: _ClassVar[int]
    CANCEL_AT_PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    CANCEL_REASON_FIELD_NUMBER: _ClassVar[int]
    id: str
    cancel_at_period_end: bool
    cancel_reason: str
    def __init__(self, id: _Optional[str] = ..., cancel_at_period_end: _Optional[bool] = ..., cancel_reason: _Optional[str] = ...) -> None: ...

class CancelSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: Subscription
    def __init__(self, subscription: _Optional[_Union[Subscription, _Mapping]] = ...) -> None: ...

class RevokeSubscriptionCancelRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RevokeSubscriptionCancelResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: Subscription
    def __init__(self, subscription: _Optional[_Union[Subscription, _Mapping]] = ...) -> None: ...

class PauseSubscriptionRequest(_message.Message):
    __slots__ = ("id", "behavior", "resumes_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    RESUMES_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    behavior: PauseCollectionBehavior
    resumes_at: int
    def __init__(self, id: _Optional[str] = ..., behavior: _Optional[_Union[PauseCollectionBehavior, str]] = ..., resumes_at: _Optional[int] = ...) -> None: ...

class PauseSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: Subscription
    def __init__(self, subscription: _Optional[_Union[Subscription, _Mapping]] = ...) -> None: ...

class ResumeSubscriptionRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ResumeSubscriptionResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: Subscription
    def __init__(self, subscription: _Optional[_Union[Subscription, _Mapping]] = ...) -> None: ...

class PlanChangeVariant(_message.Message):
    __slots__ = ("selling_plan_id", "variant_id", "quantity")
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    selling_plan_id: str
    variant_id: str
    quantity: int
    def __init__(self, selling_plan_id: _Optional[str] = ..., variant_id: _Optional[str] = ..., quantity: _Optional[int] = ...) -> None: ...

class PlanChangeAddon(_message.Message):
    __slots__ = ("variant_id", "quantity")
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    variant_id: str
    quantity: int
    def __init__(self, variant_id: _Optional[str] = ..., quantity: _Optional[int] = ...) -> None: ...

class ChangeSubscriptionPlanRequest(_message.Message):
    __slots__ = ("id", "primary_variant", "proration_behavior", "proration_date", "billing_cycle_anchor", "metadata", "addons")
    ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANT_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    PRORATION_DATE_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_ANCHOR_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    ADDONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    primary_variant: PlanChangeVariant
    proration_behavior: ProrationBehavior
    proration_date: int
    billing_cycle_anchor: BillingCycleAnchor
    metadata: _struct_pb2.Struct
    addons: _containers.RepeatedCompositeFieldContainer[PlanChangeAddon]
    def __init__(self, id: _Optional[str] = ..., primary_variant: _Optional[_Union[PlanChangeVariant, _Mapping]] = ..., proration_behavior: _Optional[_Union[ProrationBehavior, str]] = ..., proration_date: _Optional[int] = ..., billing_cycle_anchor: _Optional[_Union[BillingCycleAnchor, str]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., addons: _Optional[_Iterable[_Union[PlanChangeAddon, _Mapping]]] = ...) -> None: ...

class ChangeSubscriptionPlanResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: SubscriptionChange
    def __init__(self, subscription: _Optional[_Union[SubscriptionChange, _Mapping]] = ...) -> None: ...

class PreviewSubscriptionChangeRequest(_message.Message):
    __slots__ = ("id", "primary_variant", "proration_behavior", "proration_date", "billing_cycle_anchor", "metadata", "addons")
    ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANT_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    PRORATION_DATE_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_ANCHOR_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    ADDONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    primary_variant: PlanChangeVariant
    proration_behavior: ProrationBehavior
    proration_date: int
    billing_cycle_anchor: BillingCycleAnchor
    metadata: _struct_pb2.Struct
    addons: _containers.RepeatedCompositeFieldContainer[PlanChangeAddon]
    def __init__(self, id: _Optional[str] = ..., primary_variant: _Optional[_Union[PlanChangeVariant, _Mapping]] = ..., proration_behavior: _Optional[_Union[ProrationBehavior, str]] = ..., proration_date: _Optional[int] = ..., billing_cycle_anchor: _Optional[_Union[BillingCycleAnchor, str]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., addons: _Optional[_Iterable[_Union[PlanChangeAddon, _Mapping]]] = ...) -> None: ...

class SubscriptionChange(_message.Message):
    __slots__ = ("id", "merchant_id", "merchant_name", "customer_id", "customer_name", "customer_email", "product_id", "product_name", "product_description", "product_image_url", "variant_id", "variant_title", "variant_option_values", "variant_price", "selling_plan_id", "selling_plan_name", "selling_plan_description", "selling_plan_pricing", "status", "collection_method", "default_payment_method_id", "default_payment_method_type", "default_provider_type", "payment_method_brand", "payment_method_last4", "external_id", "metadata", "created_at", "updated_at", "billing_cycle_anchor", "current_period_start", "current_period_end", "trial_start", "trial_end", "canceled_at", "cancel_reason", "cancel_at_period_end", "paused_at", "pause_collection_behavior", "resumes_at", "latest_invoice_id", "current_cycle_number", "current_pricing_tier", "upcoming_pricing_tier", "next_charge_amount", "next_charge_amount_display", "payment_required", "payment_url", "payment_expires_at", "hours_since_creation", "quantity", "livemode", "pending_update", "test_clock", "applied", "is_upgrade", "effective_date", "proration_credit", "charge_today", "next_charge_date", "proration_details", "invoice_id", "change_type", "proration_behavior", "proration_billing_cycle_anchor")
    class VariantOptionValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_NAME_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_NAME_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_NAME_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_TITLE_FIELD_NUMBER: _ClassVar[int]
    VARIANT_OPTION_VALUES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_PRICE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_NAME_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_PRICING_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_METHOD_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PAYMENT_METHOD_ID_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PROVIDER_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_BRAND_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_LAST4_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_ANCHOR_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PERIOD_START_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    TRIAL_START_FIELD_NUMBER: _ClassVar[int]
    TRIAL_END_FIELD_NUMBER: _ClassVar[int]
    CANCELED_AT_FIELD_NUMBER: _ClassVar[int]
    CANCEL_REASON_FIELD_NUMBER: _ClassVar[int]
    CANCEL_AT_PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    PAUSED_AT_FIELD_NUMBER: _ClassVar[int]
    PAUSE_COLLECTION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    RESUMES_AT_FIELD_NUMBER: _ClassVar[int]
    LATEST_INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    CURRENT_CYCLE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PRICING_TIER_FIELD_NUMBER: _ClassVar[int]
    UPCOMING_PRICING_TIER_FIELD_NUMBER: _ClassVar[int]
    NEXT_CHARGE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    NEXT_CHARGE_AMOUNT_DISPLAY_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_URL_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    HOURS_SINCE_CREATION_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    PENDING_UPDATE_FIELD_NUMBER: _ClassVar[int]
    TEST_CLOCK_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    IS_UPGRADE_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_DATE_FIELD_NUMBER: _ClassVar[int]
    PRORATION_CREDIT_FIELD_NUMBER: _ClassVar[int]
    CHARGE_TODAY_FIELD_NUMBER: _ClassVar[int]
    NEXT_CHARGE_DATE_FIELD_NUMBER: _ClassVar[int]
    PRORATION_DETAILS_FIELD_NUMBER: _ClassVar[int]
    INVOICE_ID_FIELD_NUMBER: _ClassVar[int]
    CHANGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    PRORATION_BILLING_CYCLE_ANCHOR_FIELD_NUMBER: _ClassVar[int]
    id: str
    merchant_id: str
    merchant_name: str
    customer_id: str
    customer_name: str
    customer_email: str
    product_id: str
    product_name: str
    product_description: str
    product_image_url: str
    variant_id: str
    variant_title: str
    variant_option_values: _containers.ScalarMap[str, str]
    variant_price: str
    selling_plan_id: str
    selling_plan_name: str
    selling_plan_description: str
    selling_plan_pricing: SellingPlanPricing
    status: SubscriptionStatus
    collection_method: CollectionMethod
    default_payment_method_id: str
    default_payment_method_type: str
    default_provider_type: str
    payment_method_brand: str
    payment_method_last4: str
    external_id: str
    metadata: _struct_pb2.Struct
    created_at: int
    updated_at: int
    billing_cycle_anchor: int
    current_period_start: int
    current_period_end: int
    trial_start: int
    trial_end: int
    canceled_at: int
    cancel_reason: str
    cancel_at_period_end: bool
    paused_at: int
    pause_collection_behavior: PauseCollectionBehavior
    resumes_at: int
    latest_invoice_id: str
    current_cycle_number: int
    current_pricing_tier: PricingTierView
    upcoming_pricing_tier: PricingTierView
    next_charge_amount: str
    next_charge_amount_display: str
    payment_required: bool
    payment_url: str
    payment_expires_at: int
    hours_since_creation: int
    quantity: int
    livemode: bool
    pending_update: PendingUpdate
    test_clock: TestClock
    applied: bool
    is_upgrade: bool
    effective_date: int
    proration_credit: str
    charge_today: str
    next_charge_date: int
    proration_details: ProrationDetails
    invoice_id: str
    change_type: PlanChangeType
    proration_behavior: ProrationBehavior
    proration_billing_cycle_anchor: BillingCycleAnchor
    def __init__(self, id: _Optional[str] = ..., merchant_id: _Optional[str] = ..., merchant_name: _Optional[str] = ..., customer_id: _Optional[str] = ..., customer_name: _Optional[str] = ..., customer_email: _Optional[str] = ..., product_id: _Optional[str] = ..., product_name: _Optional[str] = ..., product_description: _Optional[str] = ..., product_image_url: _Optional[str] = ..., variant_id: _Optional[str] = ..., variant_title: _Optional[str] = ..., variant_option_values: _Optional[_Mapping[str, str]] = ..., variant_price: _Optional[str] = ..., selling_plan_id: _Optional[str] = ..., selling_plan_name: _Optional[str] = ..., selling_plan_description: _Optional[str] = ..., selling_plan_pricing: _Optional[_Union[SellingPlanPricing, _Mapping]] = ..., status: _Optional[_Union[SubscriptionStatus, str]] = ..., collection_method: _Optional[_Union[CollectionMethod, str]] = ..., default_payment_method_id: _Optional[str] = ..., default_payment_method_type: _Optional[str] = ..., default_provider_type: _Optional[str] = ..., payment_method_brand: _Optional[str] = ..., payment_method_last4: _Optional[str] = ..., external_id: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., billing_cycle_anchor: _Optional[int] = ..., current_period_start: _Optional[int] = ..., current_period_end: _Optional[int] = ..., trial_start: _Optional[int] = ..., trial_end: _Optional[int] = ..., canceled_at: _Optional[int] = ..., cancel_reason: _Optional[str] = ..., cancel_at_period_end: _Optional[bool] = ..., paused_at: _Optional[int] = ..., pause_collection_behavior: _Optional[_Union[PauseCollectionBehavior, str]] = ..., resumes_at: _Optional[int] = ..., latest_invoice_id: _Optional[str] = ..., current_cycle_number: _Optional[int] = ..., current_pricing_tier: _Optional[_Union[PricingTierView, _Mapping]] = ..., upcoming_pricing_tier: _Optional[_Union[PricingTierView, _Mapping]] = ..., next_charge_amount: _Optional[str] = ..., next_charge_amount_display: _Optional[str] = ..., payment_required: _Optional[bool] = ..., payment_url: _Optional[str] = ..., payment_expires_at: _Optional[int] = ..., hours_since_creation: _Optional[int] = ..., quantity: _Optional[int] = ..., livemode: _Optional[bool] = ..., pending_update: _Optional[_Union[PendingUpdate, _Mapping]] = ..., test_clock: _Optional[_Union[TestClock, _Mapping]] = ..., applied: _Optional[bool] = ..., is_upgrade: _Optional[bool] = ..., effective_date: _Optional[int] = ..., proration_credit: _Optional[str] = ..., charge_today: _Optional[str] = ..., next_charge_date: _Optional[int] = ..., proration_details: _Optional[_Union[ProrationDetails, _Mapping]] = ..., invoice_id: _Optional[str] = ..., change_type: _Optional[_Union[PlanChangeType, str]] = ..., proration_behavior: _Optional[_Union[ProrationBehavior, str]] = ..., proration_billing_cycle_anchor: _Optional[_Union[BillingCycleAnchor, str]] = ...) -> None: ...

class ProrationDetails(_message.Message):
    __slots__ = ("credited_amount", "charged_amount", "net_amount", "days_remaining", "total_days", "current_price", "target_price")
    CREDITED_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CHARGED_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    NET_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    DAYS_REMAINING_FIELD_NUMBER: _ClassVar[int]
    TOTAL_DAYS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PRICE_FIELD_NUMBER: _ClassVar[int]
    TARGET_PRICE_FIELD_NUMBER: _ClassVar[int]
    credited_amount: str
    charged_amount: str
    net_amount: str
    days_remaining: int
    total_days: int
    current_price: str
    target_price: str
    def __init__(self, credited_amount: _Optional[str] = ..., charged_amount: _Optional[str] = ..., net_amount: _Optional[str] = ..., days_remaining: _Optional[int] = ..., total_days: _Optional[int] = ..., current_price: _Optional[str] = ..., target_price: _Optional[str] = ...) -> None: ...

class PreviewSubscriptionChangeResponse(_message.Message):
    __slots__ = ("preview",)
    PREVIEW_FIELD_NUMBER: _ClassVar[int]
    preview: SubscriptionChange
    def __init__(self, preview: _Optional[_Union[SubscriptionChange, _Mapping]] = ...) -> None: ...

class AdvanceSubscriptionTestClockRequest(_message.Message):
    __slots__ = ("id", "to")
    ID_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    id: str
    to: int
    def __init__(self, id: _Optional[str] = ..., to: _Optional[int] = ...) -> None: ...

class AdvanceSubscriptionTestClockResponse(_message.Message):
    __slots__ = ("subscription",)
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: Subscription
    def __init__(self, subscription: _Optional[_Union[Subscription, _Mapping]] = ...) -> None: ...
