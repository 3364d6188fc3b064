from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from paygate.v1 import money_pb2 as _money_pb2
from paygate.v1 import options_pb2 as _options_pb2
from paygate.v1 import payment_intents_pb2 as _payment_intents_pb2
from paygate.v1 import payment_links_pb2 as _payment_links_pb2
from paygate.v1 import products_pb2 as _products_pb2
from paygate.v1 import subscriptions_pb2 as _subscriptions_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CheckoutLink(_message.Message):
    __slots__ = ("id", "active", "url", "livemode", "merchant_id", "merchant_name", "product", "product_version", "default_variant_id", "primary_variants", "addon_variants", "price_range", "collect_shipping_address", "collect_tax_address", "payment_method_types", "asset_ids", "product_image_url", "public_key", "return_url")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_NAME_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_VERSION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANTS_FIELD_NUMBER: _ClassVar[int]
    ADDON_VARIANTS_FIELD_NUMBER: _ClassVar[int]
    PRICE_RANGE_FIELD_NUMBER: _ClassVar[int]
    COLLECT_SHIPPING_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    COLLECT_TAX_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPES_FIELD_NUMBER: _ClassVar[int]
    ASSET_IDS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    id: str
    active: bool
    url: str
    livemode: bool
    merchant_id: str
    merchant_name: str
    product: _payment_links_pb2.PaymentLinkProduct
    product_version: int
    default_variant_id: str
    primary_variants: _containers.RepeatedCompositeFieldContainer[CheckoutVariant]
    addon_variants: _containers.RepeatedCompositeFieldContainer[CheckoutAddon]
    price_range: _payment_links_pb2.PriceRange
    collect_shipping_address: bool
    collect_tax_address: bool
    payment_method_types: _containers.RepeatedScalarFieldContainer[str]
    asset_ids: _containers.RepeatedScalarFieldContainer[str]
    product_image_url: str
    public_key: str
    return_url: str
    def __init__(self, id: _Optional[str] = ..., active: _Optional[bool] = ..., url: _Optional[str] = ..., livemode: _Optional[bool] = ..., merchant_id: _Optional[str] = ..., merchant_name: _Optional[str] = ..., product: _Optional[_Union[_payment_links_pb2.PaymentLinkProduct, _Mapping]] = ..., product_version: _Optional[int] = ..., default_variant_id: _Optional[str] = ..., primary_variants: _Optional[_Iterable[_Union[CheckoutVariant, _Mapping]]] = ..., addon_variants: _Optional[_Iterable[_Union[CheckoutAddon, _Mapping]]] = ..., price_range: _Optional[_Union[_payment_links_pb2.PriceRange, _Mapping]] = ..., collect_shipping_address: _Optional[bool] = ..., collect_tax_address: _Optional[bool] = ..., payment_method_types: _Optional[_Iterable[str]] = ..., asset_ids: _Optional[_Iterable[str]] = ..., product_image_url: _Optional[str] = ..., public_key: _Optional[str] = ..., return_url: _Optional[str] = ...) -> None: ...

class CheckoutVariant(_message.Message):
    __slots__ = ("variant_id", "title", "option_values", "price", "available", "selling_plans")
    class OptionValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    OPTION_VALUES_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLANS_FIELD_NUMBER: _ClassVar[int]
    variant_id: str
    title: str
    option_values: _containers.ScalarMap[str, str]
    price: _money_pb2.Price
    available: bool
    selling_plans: _containers.RepeatedCompositeFieldContainer[CheckoutSellingPlan]
    def __init__(self, variant_id: _Optional[str] = ..., title: _Optional[str] = ..., option_values: _Optional[_Mapping[str, str]] = ..., price: _Optional[_Union[_money_pb2.Price, _Mapping]] = ..., available: _Optional[bool] = ..., selling_plans: _Optional[_Iterable[_Union[CheckoutSellingPlan, _Mapping]]] = ...) -> None: ...

class CheckoutSellingPlan(_message.Message):
    __slots__ = ("id", "name", "description", "billing_cycle", "billing_cycle_interval", "trial_period_days", "pricing_tiers")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    TRIAL_PERIOD_DAYS_FIELD_NUMBER: _ClassVar[int]
    PRICING_TIERS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    billing_cycle: _products_pb2.BillingCycle
    billing_cycle_interval: int
    trial_period_days: int
    pricing_tiers: _containers.RepeatedCompositeFieldContainer[_subscriptions_pb2.PricingTier]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., billing_cycle: _Optional[_Union[_products_pb2.BillingCycle, str]] = ..., billing_cycle_interval: _Optional[int] = ..., trial_period_days: _Optional[int] = ..., pricing_tiers: _Optional[_Iterable[_Union[_subscriptions_pb2.PricingTier, _Mapping]]] = ...) -> None: ...

class CheckoutAddon(_message.Message):
    __slots__ = ("variant", "min_quantity", "max_quantity")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    MIN_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    MAX_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    variant: CheckoutVariant
    min_quantity: int
    max_quantity: int
    def __init__(self, variant: _Optional[_Union[CheckoutVariant, _Mapping]] = ..., min_quantity: _Optional[int] = ..., max_quantity: _Optional[int] = ...) -> None: ...

class GetCheckoutLinkRequest(_message.Message):
    __slots__ = ("payment_link_id", "key")
    PAYMENT_LINK_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    payment_link_id: str
    key: str
    def __init__(self, payment_link_id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class GetCheckoutLinkResponse(_message.Message):
    __slots__ = ("link",)
    LINK_FIELD_NUMBER: _ClassVar[int]
    link: CheckoutLink
    def __init__(self, link: _Optional[_Union[CheckoutLink, _Mapping]] = ...) -> None: ...

class SendVerificationCodeRequest(_message.Message):
    __slots__ = ("key", "payment_link_id", "email", "phone")
    KEY_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    key: str
    payment_link_id: str
    email: str
    phone: str
    def __init__(self, key: _Optional[str] = ..., payment_link_id: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ...) -> None: ...

class SendVerificationCodeResponse(_message.Message):
    __slots__ = ("expires_at", "retry_after")
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_FIELD_NUMBER: _ClassVar[int]
    expires_at: int
    retry_after: int
    def __init__(self, expires_at: _Optional[int] = ..., retry_after: _Optional[int] = ...) -> None: ...

class StartCheckoutRequest(_message.Message):
    __slots__ = ("key", "payment_link_id", "email", "verification_code", "ephemeral_token", "auth_token", "primary_variant", "addons", "product_version", "phone", "replaces_payment_intent_id", "replaces_client_secret")
    KEY_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    VERIFICATION_CODE_FIELD_NUMBER: _ClassVar[int]
    EPHEMERAL_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AUTH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANT_FIELD_NUMBER: _ClassVar[int]
    ADDONS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_VERSION_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    REPLACES_PAYMENT_INTENT_ID_FIELD_NUMBER: _ClassVar[int]
    REPLACES_CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    key: str
    payment_link_id: str
    email: str
    verification_code: str
    ephemeral_token: str
    auth_token: str
    primary_variant: _payment_intents_pb2.PrimaryVariantSelection
    addons: _containers.RepeatedCompositeFieldContainer[_payment_intents_pb2.AddonSelection]
    product_version: int
    phone: str
    replaces_payment_intent_id: str
    replaces_client_secret: str
    def __init__(self, key: _Optional[str] = ..., payment_link_id: _Optional[str] = ..., email: _Optional[str] = ..., verification_code: _Optional[str] = ..., ephemeral_token: _Optional[str] = ..., auth_token: _Optional[str] = ..., primary_variant: _Optional[_Union[_payment_intents_pb2.PrimaryVariantSelection, _Mapping]] = ..., addons: _Optional[_Iterable[_Union[_payment_intents_pb2.AddonSelection, _Mapping]]] = ..., product_version: _Optional[int] = ..., phone: _Optional[str] = ..., replaces_payment_intent_id: _Optional[str] = ..., replaces_client_secret: _Optional[str] = ...) -> None: ...

class StartCheckoutResponse(_message.Message):
    __slots__ = ("payment_intent_id", "client_secret", "public_key", "customer_id", "email", "auth_token", "return_url")
    PAYMENT_INTENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    AUTH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    payment_intent_id: str
    client_secret: str
    public_key: str
    customer_id: str
    email: str
    auth_token: str
    return_url: str
    def __init__(self, payment_intent_id: _Optional[str] = ..., client_secret: _Optional[str] = ..., public_key: _Optional[str] = ..., customer_id: _Optional[str] = ..., email: _Optional[str] = ..., auth_token: _Optional[str] = ..., return_url: _Optional[str] = ...) -> None: ...

class GetCheckoutSessionRequest(_message.Message):
    __slots__ = ("payment_intent_id", "client_secret")
    PAYMENT_INTENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    payment_intent_id: str
    client_secret: str
    def __init__(self, payment_intent_id: _Optional[str] = ..., client_secret: _Optional[str] = ...) -> None: ...

class GetCheckoutSessionResponse(_message.Message):
    __slots__ = ("public_key", "merchant_id", "merchant_name", "livemode", "return_url", "payment_link_id", "payment_method_types")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_NAME_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPES_FIELD_NUMBER: _ClassVar[int]
    public_key: str
    merchant_id: str
    merchant_name: str
    livemode: bool
    return_url: str
    payment_link_id: str
    payment_method_types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, public_key: _Optional[str] = ..., merchant_id: _Optional[str] = ..., merchant_name: _Optional[str] = ..., livemode: _Optional[bool] = ..., return_url: _Optional[str] = ..., payment_link_id: _Optional[str] = ..., payment_method_types: _Optional[_Iterable[str]] = ...) -> None: ...
